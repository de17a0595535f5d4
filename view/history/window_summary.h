// One always-on window's GPU work in a few numbers (docs/always-on.md): protond computes it once
// when a window stops, and `protonctl history` and the web page's History show it. Pure.
#ifndef PROTOND_VIEW_HISTORY_WINDOW_SUMMARY_H_
#define PROTOND_VIEW_HISTORY_WINDOW_SUMMARY_H_

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view {

// The window's GPU time (as `protonctl top` sums it: kernels, copies and sets, launch metadata
// left out), the GPUs its processes used (at least 1: a tree that does not say counts as one),
// and the kernel with the most GPU time with its time (none without GPU work).
// InvalidArgumentError for a tree of a bad shape.
absl::StatusOr<v1::WindowSummary> SummarizeWindowTree(const v1::Tree& tree);

}  // namespace protond::view

#endif  // PROTOND_VIEW_HISTORY_WINDOW_SUMMARY_H_
