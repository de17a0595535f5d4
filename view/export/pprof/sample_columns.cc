#include "view/export/pprof/sample_columns.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "view/render/metric_spec.h"
#include "view/render/metric_values.h"

namespace protond::view {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return a > 0 ? kMaxInt64 : std::numeric_limits<int64_t>::min();
}

int64_t ToInt64(uint64_t value) {
  return static_cast<int64_t>(std::min<uint64_t>(value, kMaxInt64));
}

SampleColumn CountColumn(const v1::Tree& tree) {
  SampleColumn column{"count", "count", std::vector<int64_t>(tree.nodes_size())};
  for (int i = 0; i < tree.nodes_size(); ++i) column.self[i] = ToInt64(tree.nodes(i).count());
  return column;
}

// A scope's wall time includes its children's, so its own part is the difference; children
// wider than their parent (work on other threads) widen it, as in the flame graph, so that no
// part is negative. GPU nodes have no CPU timings.
std::optional<SampleColumn> CpuTimeColumn(const v1::Tree& tree, const TreeShape& shape) {
  const int n = tree.nodes_size();
  std::vector<int64_t> own(n);
  bool any = false;
  for (int i = 0; i < n; ++i) {
    const v1::TreeNode& node = tree.nodes(i);
    if (node.count() == 0 || NodeGpuTimeNs(node).has_value()) continue;
    own[i] = ToInt64(node.duration_ns_sum());
    any = any || own[i] > 0;
  }
  if (!any) return std::nullopt;
  SampleColumn column{"cpu_time", "nanoseconds", std::vector<int64_t>(n)};
  std::vector<int64_t> children_total(n);
  // Children follow their parents: from the back, every child is final before its parent.
  for (int i = n - 1; i >= 0; --i) {
    const int64_t total = std::max(own[i], children_total[i]);
    column.self[i] = total - children_total[i];
    if (i > 0)
      children_total[shape.parent[i]] = SaturatingAdd(children_total[shape.parent[i]], total);
  }
  return column;
}

// "flops" -> flops (count); "cpu_time (ns)" -> cpu_time (nanoseconds).
std::pair<std::string, std::string> TypeAndUnit(const std::string& name) {
  if (name == kGpuTimeMetric) return {"gpu_time", "nanoseconds"};
  const size_t open = name.rfind(" (");
  if (open == std::string::npos || open == 0 || name.back() != ')') return {name, "count"};
  static const absl::flat_hash_map<std::string, std::string> kUnits = {
      {"ns", "nanoseconds"}, {"us", "microseconds"}, {"ms", "milliseconds"}, {"s", "seconds"}};
  std::string unit = name.substr(open + 2, name.size() - open - 3);
  if (auto it = kUnits.find(unit); it != kUnits.end()) unit = it->second;
  return {name.substr(0, open), unit};
}

int64_t OwnInt64(const v1::TreeNode& node, const std::string& name) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() != name) continue;
    if (metric.value_case() == v1::Metric::kIntValue) return metric.int_value();
    if (metric.value_case() == v1::Metric::kDoubleValue) return RoundToInt64(metric.double_value());
  }
  return 0;
}

// A vector metric (Proton's list or tensor values) has no one number per sample.
bool IsVectorMetric(const v1::Tree& tree, const std::string& name) {
  for (const v1::TreeNode& node : tree.nodes()) {
    for (const v1::Metric& metric : node.metrics()) {
      if (metric.name() == name && (metric.value_case() == v1::Metric::kIntVector ||
                                    metric.value_case() == v1::Metric::kDoubleVector)) {
        return true;
      }
    }
  }
  return false;
}

// The metrics' names, GPU time first and the others in the order first met, with the
// aggregation first met.
std::vector<std::pair<std::string, v1::Metric::Aggregation>> MetricNames(const v1::Tree& tree) {
  std::vector<std::pair<std::string, v1::Metric::Aggregation>> names;
  absl::flat_hash_set<std::string> seen;
  for (const v1::TreeNode& node : tree.nodes()) {
    for (const v1::Metric& metric : node.metrics()) {
      if (seen.insert(metric.name()).second)
        names.emplace_back(metric.name(), metric.aggregation());
    }
  }
  std::stable_partition(names.begin(), names.end(),
                        [](const auto& name) { return name.first == kGpuTimeMetric; });
  return names;
}

}  // namespace

int64_t RoundToInt64(double value) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (std::isnan(value)) return 0;
  if (value >= kTwoTo63) return kMaxInt64;
  if (value < -kTwoTo63) return std::numeric_limits<int64_t>::min();
  return std::llround(value);
}

std::vector<SampleColumn> BuildSampleColumns(const v1::Tree& tree, const TreeShape& shape,
                                             std::vector<std::string>* left_out) {
  std::vector<SampleColumn> columns = {CountColumn(tree)};
  if (std::optional<SampleColumn> cpu_time = CpuTimeColumn(tree, shape)) {
    columns.push_back(*std::move(cpu_time));
  }
  absl::flat_hash_set<std::string> types = {"count", "cpu_time"};
  for (const auto& [name, aggregation] : MetricNames(tree)) {
    if (aggregation == v1::Metric::PROPERTY || IsVectorMetric(tree, name)) {
      left_out->push_back(name);
      continue;
    }
    SampleColumn column;
    std::tie(column.type, column.unit) = TypeAndUnit(name);
    // Two metrics, or a metric and a built-in type, never share a type: pprof picks by it.
    if (types.contains(column.type)) column.type = name;
    while (types.contains(column.type)) column.type += " (metric)";
    types.insert(column.type);
    column.self.resize(tree.nodes_size());
    for (int i = 0; i < tree.nodes_size(); ++i) column.self[i] = OwnInt64(tree.nodes(i), name);
    columns.push_back(std::move(column));
  }
  return columns;
}

}  // namespace protond::view
