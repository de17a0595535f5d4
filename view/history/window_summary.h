// One always-on window's GPU work in a few numbers (docs/always-on.md): protond computes it once
// when a window stops, and `protonctl history` and the web page's History show it. Pure.
#ifndef PROTOND_VIEW_HISTORY_WINDOW_SUMMARY_H_
#define PROTOND_VIEW_HISTORY_WINDOW_SUMMARY_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
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

// What `protonctl history` says of one window, as values: its line, and the page's /api/history.
struct WindowOverview {
  std::string kind;  // "window", or a period's "hour" or "day"
  std::string who;   // "pid P: COMMAND" or "job J", from the window's name; "-" if neither
  // To its end, or to `now` while it runs; a period's: the time its windows recorded.
  absl::Duration length;
  double gpu_time_ns = 0;  // its kernels' GPU time, as `protonctl top` sums it
  // GPU time over the length and the GPUs the window used; none without GPU work or length.
  std::optional<double> gpu_busy;
  std::optional<std::string> top_kernel;   // the heaviest kernel's short name; none without one
  std::optional<double> top_kernel_share;  // of gpu_time_ns; none when that is 0
};

// From the window's session and the summary protond kept (window_summary): the GPU values stay
// unset for a window without one (running, or one whose tree could not be read).
WindowOverview OverviewOfWindow(const v1::Session& window, absl::Time now);

// What `protonctl history` says instead of its table when no window is selected, without a
// newline: there are none at all (`total_windows` 0, and how windows are made), or none of
// `total_windows` matches.
std::string NoWindowLine(size_t total_windows);

}  // namespace protond::view

#endif  // PROTOND_VIEW_HISTORY_WINDOW_SUMMARY_H_
