#include "view/history/window_summary.h"

#include <algorithm>
#include <vector>

#include "common/status/status_macros.h"
#include "view/tree/top_kernels.h"

namespace protond::view {
namespace {

// The GPUs the window's processes ran work on; one when the tree does not say.
uint32_t GpusUsed(const v1::Tree& tree) {
  const auto used = std::count_if(tree.devices().begin(), tree.devices().end(),
                                  [](const v1::Device& device) { return device.used(); });
  return std::max<uint32_t>(1, static_cast<uint32_t>(used));
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

}  // namespace protond::view
