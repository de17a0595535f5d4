// What changed between two profiles of the same program (two ranges of always-on windows,
// `protonctl tree --since A --diff --since B`): the kernels and scopes whose share of the GPU time
// moved by more than a threshold. Shares, not times, so that ranges of different lengths compare.
// Pure functions; no I/O.
#ifndef PROTOND_VIEW_TREE_SHARE_SHIFT_H_
#define PROTOND_VIEW_TREE_SHARE_SHIFT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"
#include "view/tree/frame_names.h"

namespace protond::view {

struct ShareShift {
  bool kernel = false;    // a kernel (by name, over all its call paths), else a scope (by path)
  std::string name;       // the driver's name, or the scope's path from under ROOT ("step/fwd")
  double then_share = 0;  // of `then`'s total, 0..1
  double now_share = 0;
};

struct ShareShifts {
  // Shares of GPU time when either profile has GPU work; else of the top-level scopes' time, so
  // that a program without a GPU still shows what moved.
  bool gpu_time = false;
  double then_total_ns = 0;
  double now_total_ns = 0;
  std::vector<ShareShift> moved;  // |now - then| > threshold, the largest move first
};

// Launch-metadata frames are left out, as in the tree. InvalidArgumentError for a tree of a bad
// shape or a threshold outside [0, 1).
// What `tree --diff --since` (and the page's range diff) call a move without -t: 5 points.
inline constexpr double kDefaultShareThreshold = 0.05;

absl::StatusOr<ShareShifts> FindShareShifts(const v1::Tree& now, const v1::Tree& then,
                                            double threshold);

// A heading with both totals, then a line per move: THEN %, NOW %, CHANGE (points), KIND, NAME
// (kernel names as `names` asks); or a line saying that nothing moved by more than the threshold.
std::string RenderShareShifts(const ShareShifts& shifts, double threshold, KernelNames names);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_SHARE_SHIFT_H_
