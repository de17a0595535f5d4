// `protonctl top --stalls`: the sampled source lines (PC sampling's nodes, docs/pc-sampling.md)
// with the most stalled samples, over all call paths, each with its top stall reasons. Works on
// a protond session and on a Hatchet file of Proton's pcsampling mode alike. Pure functions; no
// I/O.
#ifndef PROTOND_VIEW_TREE_TOP_STALLS_H_
#define PROTOND_VIEW_TREE_TOP_STALLS_H_

#include <string>

#include "protond.pb.h"

namespace protond::view {

// A table of the `limit` lines with the most stalled samples: stalled samples, their share of
// all stalled samples, all samples, the top three reasons with their shares of the line's
// stalls, and the line. A profile without PC samples gets one line that says so.
std::string RenderTopStalls(const v1::Tree& tree, int limit);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_TOP_STALLS_H_
