// One always-on window's GPU work in a few numbers (docs/always-on.md): protond computes it once
// when a window stops, and `protonctl history` and the web page's History show it. Pure.
#ifndef PROTOND_VIEW_HISTORY_WINDOW_SUMMARY_H_
#define PROTOND_VIEW_HISTORY_WINDOW_SUMMARY_H_

#include <optional>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view {

// The window's GPU time (as `protonctl top` sums it: kernels, copies and sets, launch metadata
// left out), the GPUs its processes used (at least 1: a tree that does not say counts as one),
// and the kernel with the most GPU time with its time (none without GPU work).
// InvalidArgumentError for a tree of a bad shape.
absl::StatusOr<v1::WindowSummary> SummarizeWindowTree(const v1::Tree& tree);

// What a summary says as shares, for `protonctl history` and protond's metrics alike: the GPU
// busy share (the GPU time over `length_ns` times the GPUs the window used) and the top kernel's
// share of the GPU time. Neither without GPU work (no top kernel); each unset where its
// denominator is 0.
struct WindowShares {
  std::optional<double> gpu_busy;
  std::optional<double> top_kernel_share;
};
WindowShares SharesOfWindow(const v1::WindowSummary& summary, double length_ns);

}  // namespace protond::view

#endif  // PROTOND_VIEW_HISTORY_WINDOW_SUMMARY_H_
