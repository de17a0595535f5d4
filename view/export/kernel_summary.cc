#include "view/export/kernel_summary.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status/status_macros.h"
#include "view/render/metric_values.h"
#include "view/render/tree_shape.h"
#include "view/tree/frame_filter.h"
#include "view/tree/frame_names.h"

namespace protond::view {
namespace {

constexpr char kHeader[] =
    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n";

using Durations = absl::flat_hash_map<uint32_t, std::vector<uint64_t>>;

struct Kernel {
  std::string name;
  double total_ns = 0;
  uint64_t instances = 0;
  std::vector<uint64_t> durations_ns;  // every launch's, from a trace
};

bool IsCopyOrSet(const std::string& name) {
  return absl::StartsWith(name, "[CUDA memcpy") || absl::StartsWith(name, "[CUDA memset");
}

Durations KernelDurations(const v1::Trace& trace) {
  Durations durations;
  for (const v1::GpuEvent& event : trace.gpu_events()) {
    if (event.kind() != v1::GpuEvent::KERNEL) continue;
    const uint64_t ns = event.end_ns() > event.start_ns() ? event.end_ns() - event.start_ns() : 0;
    durations[event.node_id()].push_back(ns);
  }
  return durations;
}

void AddNode(const v1::TreeNode& node, double time_ns, const Durations* durations, Kernel* kernel) {
  if (durations == nullptr) {
    kernel->total_ns += time_ns;
    kernel->instances += node.count();
    return;
  }
  auto it = durations->find(node.id());
  if (it == durations->end()) return;
  for (uint64_t ns : it->second) kernel->total_ns += static_cast<double>(ns);
  kernel->instances += it->second.size();
  kernel->durations_ns.insert(kernel->durations_ns.end(), it->second.begin(), it->second.end());
}

std::vector<Kernel> CollectKernels(const v1::Tree& tree, const Durations* durations) {
  std::vector<Kernel> kernels;
  absl::flat_hash_map<std::string, size_t> index;
  for (const v1::TreeNode& node : tree.nodes()) {
    const std::optional<double> time_ns = NodeGpuTimeNs(node);
    if (!time_ns.has_value() || IsCopyOrSet(node.name())) continue;
    auto [it, added] = index.try_emplace(node.name(), kernels.size());
    if (added) kernels.emplace_back().name = node.name();
    AddNode(node, *time_ns, durations, &kernels[it->second]);
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const Kernel& a, const Kernel& b) { return a.total_ns > b.total_ns; });
  return kernels;
}

// Med, Min, Max and StdDev, from the sorted durations.
std::string DistributionCells(std::vector<uint64_t> ns, double avg_ns) {
  if (ns.empty()) return ",,,";
  std::sort(ns.begin(), ns.end());
  const size_t n = ns.size();
  const double median = n % 2 == 1 ? static_cast<double>(ns[n / 2])
                                   : (static_cast<double>(ns[n / 2 - 1]) + ns[n / 2]) / 2;
  double squares = 0;
  for (uint64_t value : ns) squares += (value - avg_ns) * (value - avg_ns);
  const double stddev = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0;
  return absl::StrFormat("%.1f,%d,%d,%.1f", median, ns.front(), ns.back(), stddev);
}

// RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string Row(const Kernel& kernel, double all_ns, KernelNames names) {
  const double avg_ns = kernel.instances > 0 ? kernel.total_ns / kernel.instances : 0;
  return absl::StrFormat("%.1f,%.0f,%d,%.1f,%s,%s\n",
                         all_ns > 0 ? 100 * kernel.total_ns / all_ns : 0, kernel.total_ns,
                         kernel.instances, avg_ns, DistributionCells(kernel.durations_ns, avg_ns),
                         CsvField(KernelName(kernel.name, names)));
}

}  // namespace

absl::StatusOr<std::string> RenderKernelSummaryCsv(const v1::Tree& profile, KernelNames names,
                                                   const v1::Trace* trace) {
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(profile));
  // Kernels are told apart by the driver's names; `names` is only how they are shown.
  const v1::Tree tree = DropHiddenFrames(profile, shape);
  const Durations durations = trace != nullptr ? KernelDurations(*trace) : Durations();
  const std::vector<Kernel> kernels = CollectKernels(tree, trace != nullptr ? &durations : nullptr);
  double all_ns = 0;
  for (const Kernel& kernel : kernels) all_ns += kernel.total_ns;
  std::string out = kHeader;
  for (const Kernel& kernel : kernels) absl::StrAppend(&out, Row(kernel, all_ns, names));
  return out;
}

}  // namespace protond::view
