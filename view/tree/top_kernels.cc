#include "view/tree/top_kernels.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status/status_macros.h"
#include "view/render/device_peaks.h"
#include "view/render/metric_values.h"
#include "view/render/text_table.h"
#include "view/render/tree_shape.h"
#include "view/tree/frame_filter.h"
#include "view/tree/frame_names.h"

namespace protond::view {
namespace {

constexpr TableColumn kColumns[] = {{"TIME (ms)", true}, {"TIME %", true},    {"COUNT", true},
                                    {"AVG (us)", true},  {"TFLOP/s", true},   {"GB/s", true},
                                    {"BOUND", false},    {"% OF PEAK", true}, {"NAME", false}};

void AddWork(const v1::Tree& tree, const v1::TreeNode& node, double time_ns, KernelWork* kernel) {
  kernel->time_ns += time_ns;
  kernel->count += node.count();
  for (const v1::Metric& metric : node.metrics()) {
    const double value = ValueOf(metric).AsDouble();  // a vector's: its sum
    if (absl::StartsWith(metric.name(), "flops")) {
      kernel->flops += value;
      kernel->has_flops = true;
    } else if (metric.name() == "bytes") {
      kernel->bytes += value;
      kernel->has_bytes = true;
    }
  }
  if (const std::optional<DevicePeaks> peaks = FindNodePeaks(tree, node)) {
    kernel->bounds.Add(NodeRooflineBounds(*peaks, node));
    kernel->judged = true;
  }
}

std::vector<KernelWork> CollectKernels(const v1::Tree& tree) {
  std::vector<KernelWork> kernels;
  absl::flat_hash_map<std::string, size_t> index;
  for (const v1::TreeNode& node : tree.nodes()) {
    const std::optional<double> time_ns = NodeGpuTimeNs(node);
    if (!time_ns.has_value()) continue;
    auto [it, added] = index.try_emplace(node.name(), kernels.size());
    if (added) kernels.emplace_back().name = node.name();
    AddWork(tree, node, *time_ns, &kernels[it->second]);
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelWork& a, const KernelWork& b) { return a.time_ns > b.time_ns; });
  return kernels;
}

std::vector<std::string> Row(const KernelWork& kernel, double total_ns, KernelNames names) {
  const double seconds = kernel.time_ns / 1e9;
  auto rate = [&](bool has, double amount, double unit) {
    return has && seconds > 0 ? absl::StrFormat("%.1f", amount / seconds / unit) : "-";
  };
  const bool verdict = kernel.judged && seconds > 0 && kernel.bounds.limit_s() > 0;
  return {absl::StrFormat("%.3f", kernel.time_ns / 1e6),
          absl::StrFormat("%.1f", total_ns > 0 ? 100 * kernel.time_ns / total_ns : 0),
          absl::StrCat(kernel.count),
          kernel.count > 0 ? absl::StrFormat("%.3f", kernel.time_ns / 1e3 / kernel.count) : "-",
          rate(kernel.has_flops, kernel.flops, 1e12),
          rate(kernel.has_bytes, kernel.bytes, 1e9),
          verdict ? (kernel.bounds.memory_bound() ? "memory" : "compute") : "-",
          verdict ? absl::StrFormat("%.1f", 100 * kernel.bounds.limit_s() / seconds) : "-",
          KernelName(kernel.name, names)};
}

// Which peaks the verdicts use, each device on a line.
std::string DeviceLines(const v1::Tree& tree) {
  std::string out;
  for (const v1::Device& device : tree.devices()) {
    absl::StrAppendFormat(&out, "device %u (arch %u, %u SMs, %u-bit bus): ", device.device_id(),
                          device.arch(), device.num_sms(), device.bus_width_bits());
    const std::optional<DevicePeaks> peaks = FindDevicePeaks(device);
    if (!peaks.has_value()) {
      absl::StrAppend(&out,
                      "no roofline verdict: not in the peak table, and its peaks cannot be "
                      "computed (no per-SM rates for the arch, or no clocks)\n");
      continue;
    }
    absl::StrAppendFormat(
        &out, "%s peaks FP8 %.1f, FP16 %.1f, TF32 %.1f, FP64 %.1f TFLOP/s, %.1f GB/s\n",
        peaks->source, peaks->flops_per_s[0] / 1e12, peaks->flops_per_s[1] / 1e12,
        peaks->flops_per_s[2] / 1e12, peaks->flops_per_s[3] / 1e12, peaks->bytes_per_s / 1e9);
  }
  return out.empty() ? "no device info: no roofline verdict\n" : out;
}

}  // namespace

absl::StatusOr<std::vector<KernelWork>> KernelsByGpuTime(const v1::Tree& profile) {
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(profile));
  // Kernels are told apart by the driver's names; how they are shown is the caller's.
  return CollectKernels(DropHiddenFrames(profile, shape));
}

absl::StatusOr<std::string> RenderTopKernels(const v1::Tree& tree, int limit, KernelNames names) {
  ASSIGN_OR_RETURN(const std::vector<KernelWork> kernels, KernelsByGpuTime(tree));
  if (kernels.empty()) return std::string("no GPU kernels in this profile\n");
  double total_ns = 0;
  for (const KernelWork& kernel : kernels) total_ns += kernel.time_ns;
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < kernels.size() && static_cast<int>(i) < limit; ++i) {
    rows.push_back(Row(kernels[i], total_ns, names));
  }
  return absl::StrCat(DeviceLines(tree), RenderTextTable(kColumns, rows));
}

}  // namespace protond::view
