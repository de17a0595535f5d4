// The one depth limit of protond's trees. Every tree walk sees at most this many levels, so none
// can be made to recurse, print or store without bound by a deep program or file.
#ifndef PROTOND_COMMON_TREE_TREE_DEPTH_H_
#define PROTOND_COMMON_TREE_TREE_DEPTH_H_

namespace protond {

// Levels below ROOT (ROOT is depth 0, a top-level scope depth 1). The shim records no scope
// nested deeper and the daemon keeps no node deeper (each counts and says what it left out);
// protonctl refuses a Hatchet file deeper. Real programs stay far below it: Python stops a call
// stack at 1,000 frames by default (sys.getrecursionlimit()).
inline constexpr int kMaxTreeDepth = 4096;

}  // namespace protond

#endif  // PROTOND_COMMON_TREE_TREE_DEPTH_H_
