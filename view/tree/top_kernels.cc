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

TopKernelRow MakeRow(const KernelWork& kernel, double total_ns, KernelNames names) {
  TopKernelRow row;
  row.name = kernel.name;
  row.shown_name = KernelName(kernel.name, names);
  row.time_ns = kernel.time_ns;
  row.share = total_ns > 0 ? kernel.time_ns / total_ns : 0;
  row.count = kernel.count;
  const double seconds = kernel.time_ns / 1e9;
  if (kernel.count > 0) row.average_ns = kernel.time_ns / kernel.count;
  if (kernel.has_flops && seconds > 0) row.tflop_per_s = kernel.flops / seconds / 1e12;
  if (kernel.has_bytes && seconds > 0) row.gbyte_per_s = kernel.bytes / seconds / 1e9;
  if (!kernel.judged) {
    row.no_verdict_reason = "no peaks for its device (see the device lines)";
  } else if (seconds <= 0) {
    row.no_verdict_reason = "no GPU time";
  } else if (kernel.bounds.limit_s() <= 0) {
    row.no_verdict_reason = "no flops of a known width (flops8 to flops64) and no bytes";
  } else {
    row.memory_bound = kernel.bounds.memory_bound();
    row.percent_of_peak = 100 * kernel.bounds.limit_s() / seconds;
  }
  return row;
}

// A number with one decimal, or "-" where there is none.
std::string OneDecimal(const std::optional<double>& value) {
  return value.has_value() ? absl::StrFormat("%.1f", *value) : "-";
}

std::vector<std::string> Cells(const TopKernelRow& row) {
  return {absl::StrFormat("%.3f", row.time_ns / 1e6),
          absl::StrFormat("%.1f", 100 * row.share),
          absl::StrCat(row.count),
          row.average_ns.has_value() ? absl::StrFormat("%.3f", *row.average_ns / 1e3) : "-",
          OneDecimal(row.tflop_per_s),
          OneDecimal(row.gbyte_per_s),
          row.memory_bound.has_value() ? (*row.memory_bound ? "memory" : "compute") : "-",
          OneDecimal(row.percent_of_peak),
          row.shown_name};
}

}  // namespace

std::vector<std::string> TopKernelColumns() { return ColumnHeaders(kColumns); }

std::string DevicePeaksLine(const v1::Device& device) {
  const std::string head =
      absl::StrFormat("device %u (arch %u, %u SMs, %u-bit bus): ", device.device_id(),
                      device.arch(), device.num_sms(), device.bus_width_bits());
  const std::optional<DevicePeaks> peaks = FindDevicePeaks(device);
  if (!peaks.has_value()) {
    return absl::StrCat(head,
                        "no roofline verdict: not in the peak table, and its peaks cannot be "
                        "computed (no per-SM rates for the arch, or no clocks)");
  }
  return absl::StrCat(
      head, absl::StrFormat("%s peaks FP8 %.1f, FP16 %.1f, TF32 %.1f, FP64 %.1f TFLOP/s, %.1f GB/s",
                            peaks->source, peaks->flops_per_s[0] / 1e12,
                            peaks->flops_per_s[1] / 1e12, peaks->flops_per_s[2] / 1e12,
                            peaks->flops_per_s[3] / 1e12, peaks->bytes_per_s / 1e9));
}

absl::StatusOr<std::vector<KernelWork>> KernelsByGpuTime(const v1::Tree& profile) {
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(profile));
  // Kernels are told apart by the driver's names; how they are shown is the caller's.
  return CollectKernels(DropHiddenFrames(profile, shape));
}

absl::StatusOr<TopKernels> BuildTopKernels(const v1::Tree& tree, int limit, KernelNames names) {
  ASSIGN_OR_RETURN(const std::vector<KernelWork> kernels, KernelsByGpuTime(tree));
  TopKernels top;
  if (kernels.empty()) {
    top.note = "no GPU kernels in this profile";
    return top;
  }
  for (const v1::Device& device : tree.devices()) {
    top.device_lines.push_back(DevicePeaksLine(device));
  }
  if (top.device_lines.empty()) top.device_lines.push_back("no device info: no roofline verdict");
  double total_ns = 0;
  for (const KernelWork& kernel : kernels) total_ns += kernel.time_ns;
  for (size_t i = 0; i < kernels.size() && static_cast<int>(i) < limit; ++i) {
    TopKernelRow& row = top.rows.emplace_back(MakeRow(kernels[i], total_ns, names));
    row.cells = Cells(row);
  }
  return top;
}

absl::StatusOr<std::string> RenderTopKernels(const v1::Tree& tree, int limit, KernelNames names) {
  ASSIGN_OR_RETURN(const TopKernels top, BuildTopKernels(tree, limit, names));
  if (!top.note.empty()) return absl::StrCat(top.note, "\n");
  std::string out;
  for (const std::string& line : top.device_lines) absl::StrAppend(&out, line, "\n");
  std::vector<std::vector<std::string>> rows;
  for (const TopKernelRow& row : top.rows) rows.push_back(row.cells);
  return absl::StrCat(out, RenderTextTable(kColumns, rows));
}

}  // namespace protond::view
