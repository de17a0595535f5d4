#include "view/history/window_summary.h"

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status/status_macros.h"
#include "view/tree/frame_names.h"
#include "view/tree/top_kernels.h"

namespace protond::view {
namespace {

// The GPUs the window's processes ran work on; one when the tree does not say.
uint32_t GpusUsed(const v1::Tree& tree) {
  const auto used = std::count_if(tree.devices().begin(), tree.devices().end(),
                                  [](const v1::Device& device) { return device.used(); });
  return std::max<uint32_t>(1, static_cast<uint32_t>(used));
}

// How long it recorded: to its end, or to `now` while it runs.
absl::Duration LengthOf(const v1::Session& session, absl::Time now) {
  // A period's start and end are its hour or day: it recorded its windows' lengths.
  if (session.window_summary().recorded_ns() > 0) {
    return absl::Nanoseconds(session.window_summary().recorded_ns());
  }
  const absl::Time start = absl::FromUnixNanos(session.start_time_unix_ns());
  const absl::Time end = session.state() == v1::Session::RUNNING
                             ? now
                             : absl::FromUnixNanos(session.end_time_unix_ns());
  return std::max(end - start, absl::ZeroDuration());
}

// "pid P: COMMAND" or "job J", as the window's name ("window pid P", "window job J") says, or
// the period's ("hour pid P", "day job J").
std::string Who(const v1::Session& session) {
  absl::string_view who = session.name();
  for (absl::string_view kind : {"window ", "hour ", "day "}) {
    if (absl::ConsumePrefix(&who, kind)) break;
  }
  if (who.empty()) return "-";
  if (absl::StartsWith(who, "pid ") && session.processes_size() > 0 &&
      !session.processes(0).command().empty()) {
    return absl::StrCat(who, ": ", session.processes(0).command());
  }
  return std::string(who);
}

}  // namespace

absl::StatusOr<v1::WindowSummary> SummarizeWindowTree(const v1::Tree& tree) {
  ASSIGN_OR_RETURN(const std::vector<KernelWork> kernels, KernelsByGpuTime(tree));
  v1::WindowSummary summary;
  summary.set_gpus_used(GpusUsed(tree));
  double gpu_time_ns = 0;
  for (const KernelWork& kernel : kernels) gpu_time_ns += kernel.time_ns;
  summary.set_gpu_time_ns(gpu_time_ns);
  if (!kernels.empty()) {
    summary.set_top_kernel(kernels.front().name);
    summary.set_top_kernel_time_ns(kernels.front().time_ns);
  }
  return summary;
}

WindowShares SharesOfWindow(const v1::WindowSummary& summary, double length_ns) {
  WindowShares shares;
  if (summary.top_kernel().empty()) return shares;  // no GPU work
  const double gpu_capacity_ns = length_ns * std::max<uint32_t>(1, summary.gpus_used());
  if (gpu_capacity_ns > 0) shares.gpu_busy = summary.gpu_time_ns() / gpu_capacity_ns;
  if (summary.gpu_time_ns() > 0) {
    shares.top_kernel_share = summary.top_kernel_time_ns() / summary.gpu_time_ns();
  }
  return shares;
}

WindowOverview OverviewOfWindow(const v1::Session& window, absl::Time now) {
  WindowOverview overview;
  overview.who = Who(window);
  overview.kind = window.period() == v1::Session::HOUR  ? "hour"
                  : window.period() == v1::Session::DAY ? "day"
                                                        : "window";
  overview.length = LengthOf(window, now);
  if (!window.has_window_summary()) return overview;
  const v1::WindowSummary& kept = window.window_summary();
  overview.gpu_time_ns = kept.gpu_time_ns();
  if (kept.top_kernel().empty()) return overview;  // no GPU work
  const WindowShares shares = SharesOfWindow(kept, absl::ToDoubleNanoseconds(overview.length));
  overview.gpu_busy = shares.gpu_busy;
  overview.top_kernel = KernelName(kept.top_kernel(), KernelNames::kShort);
  overview.top_kernel_share = shares.top_kernel_share;
  return overview;
}

std::string NoWindowLine(size_t total_windows) {
  if (total_windows == 0) {
    return "no always-on windows: protond records them when started with --always-on "
           "(docs/always-on.md)";
  }
  if (total_windows == 1) return "the one always-on window does not match";
  return absl::StrCat("none of the ", total_windows, " always-on windows matches");
}

}  // namespace protond::view
