#include "view/render/metric_values.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "view/render/device_peaks.h"

namespace protond::view {
namespace {

using Source = MetricColumn::Source;
using Values = std::vector<MetricValue>;

constexpr double kNsPerSecond = 1e9;

bool HasGpuTime(const v1::TreeNode& node) { return NodeGpuTimeNs(node).has_value(); }

// At most UINT64_MAX: two counts of 2^63 must not make ROOT's count 0.
uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  uint64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<uint64_t>::max() : sum;
}

// ROOT has no count or timing of its own; it shows its direct children's, combined: all their
// counts, and the timings of the scopes among them.
v1::TreeNode CombineTimings(const v1::Tree& tree, const std::vector<int>& nodes, Source source) {
  v1::TreeNode sum;
  for (int i : nodes) {
    const v1::TreeNode& node = tree.nodes(i);
    if (node.count() == 0 || (source != Source::kCount && HasGpuTime(node))) continue;
    sum.set_duration_ns_min(sum.count() == 0
                                ? node.duration_ns_min()
                                : std::min(sum.duration_ns_min(), node.duration_ns_min()));
    sum.set_duration_ns_max(std::max(sum.duration_ns_max(), node.duration_ns_max()));
    sum.set_count(SaturatingAdd(sum.count(), node.count()));
    sum.set_duration_ns_sum(SaturatingAdd(sum.duration_ns_sum(), node.duration_ns_sum()));
  }
  return sum;
}

// A GPU node's count is its launches: it has no CPU timings.
MetricValue TimingValue(const MetricColumn& column, const v1::TreeNode& node) {
  if (column.source == Source::kCount) return MetricValue::Count(node.count());
  if (node.count() == 0 || HasGpuTime(node)) return MetricValue();
  double ns = 0;
  switch (column.source) {
    case Source::kCpuTime:
      ns = node.duration_ns_sum();
      break;
    case Source::kAvgCpuTime:
      ns = static_cast<double>(node.duration_ns_sum()) / node.count();
      break;
    case Source::kMinCpuTime:
      ns = node.duration_ns_min();
      break;
    case Source::kMaxCpuTime:
      ns = node.duration_ns_max();
      break;
    default:
      return MetricValue();
  }
  return MetricValue::Double(ns / column.divisor);
}

Values TimingValues(const v1::Tree& tree, const TreeShape& shape, const MetricColumn& column) {
  Values values(tree.nodes_size());
  for (int i = 0; i < tree.nodes_size(); ++i) {
    values[i] = i == 0 ? TimingValue(column, CombineTimings(tree, shape.children[0], column.source))
                       : TimingValue(column, tree.nodes(i));
  }
  return values;
}

MetricValue OwnValue(const v1::TreeNode& node, const std::string& name) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() == name) return ValueOf(metric);
  }
  return MetricValue();
}

Values OwnValues(const v1::Tree& tree, const std::string& name) {
  Values values(tree.nodes_size());
  for (int i = 0; i < tree.nodes_size(); ++i) values[i] = OwnValue(tree.nodes(i), name);
  return values;
}

// Children follow their parents, so one pass from the back folds each subtree into its top.
Values SumIntoParents(const TreeShape& shape, Values values) {
  for (int i = static_cast<int>(values.size()) - 1; i > 0; --i) {
    values[shape.parent[i]].Add(values[i]);
  }
  return values;
}

// The launches behind the GPU time: the counts of the nodes that have GPU time, summed.
Values GpuLaunches(const v1::Tree& tree, const TreeShape& shape) {
  Values values(tree.nodes_size());
  for (int i = 0; i < tree.nodes_size(); ++i) {
    if (HasGpuTime(tree.nodes(i))) {
      values[i] = MetricValue::Count(tree.nodes(i).count());
    }
  }
  return SumIntoParents(shape, std::move(values));
}

// numerator / denominator / divisor; blank where either is blank or the denominator is 0.
Values Divide(const Values& numerator, const Values& denominator, double divisor) {
  Values values(numerator.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (numerator[i].blank() || denominator[i].blank() || denominator[i].AsDouble() == 0) continue;
    values[i] = MetricValue::Double(numerator[i].AsDouble() / denominator[i].AsDouble() / divisor);
  }
  return values;
}

Values GpuSeconds(const v1::Tree& tree, const TreeShape& shape) {
  Values seconds = SumIntoParents(shape, OwnValues(tree, kGpuTimeMetric));
  for (MetricValue& value : seconds) {
    if (!value.blank()) value = MetricValue::Double(value.AsDouble() / kNsPerSecond);
  }
  return seconds;
}

// Proton's util: the roofline's limit (the least time the kernel's flops and bytes need at the
// device's peaks) over the time it took.
Values UtilValues(const v1::Tree& tree) {
  Values values(tree.nodes_size());
  for (int i = 0; i < tree.nodes_size(); ++i) {
    const v1::TreeNode& node = tree.nodes(i);
    const MetricValue time_ns = OwnValue(node, kGpuTimeMetric);
    const std::optional<DevicePeaks> peaks = FindNodePeaks(tree, node);
    if (time_ns.blank() || time_ns.AsDouble() <= 0 || !peaks.has_value()) continue;
    const double limit_s = NodeRooflineBounds(*peaks, node).limit_s();
    values[i] = MetricValue::Double(limit_s / (time_ns.AsDouble() / kNsPerSecond));
  }
  return values;
}

Values UserValues(const v1::Tree& tree, const TreeShape& shape, const MetricColumn& column) {
  Values values = OwnValues(tree, column.user_metric);
  if (column.aggregation == v1::Metric::INCLUSIVE) values = SumIntoParents(shape, values);
  if (column.divisor == 1) return values;
  for (MetricValue& value : values) {  // "time/ms" of the GPU time in ns
    if (!value.blank()) value = MetricValue::Double(value.AsDouble() / column.divisor);
  }
  return values;
}

// The sum that is 100%, of the values of `column` without its percent.
MetricValue Total(const MetricColumn& column, const Values& values) {
  MetricValue total;
  const bool summed =
      column.source == Source::kCpuTime ||
      (column.source == Source::kUserMetric && column.aggregation == v1::Metric::INCLUSIVE);
  if (summed) {
    if (!values.empty()) total = values[0];
  } else {
    // ROOT's own count is its children's, combined.
    for (size_t i = 1; i < values.size(); ++i) total.Add(values[i]);
  }
  return total;
}

Values RawValues(const v1::Tree& tree, const TreeShape& shape, const MetricColumn& column) {
  switch (column.source) {
    case Source::kUserMetric:
      return UserValues(tree, shape, column);
    case Source::kAvgGpuTime:
      return Divide(SumIntoParents(shape, OwnValues(tree, kGpuTimeMetric)),
                    GpuLaunches(tree, shape), column.divisor);
    case Source::kRate:
      return Divide(SumIntoParents(shape, OwnValues(tree, column.user_metric)),
                    GpuSeconds(tree, shape), column.divisor);
    case Source::kUtil:
      return UtilValues(tree);
    default:
      return TimingValues(tree, shape, column);
  }
}

}  // namespace

MetricValue ValueOf(const v1::Metric& metric) {
  std::vector<MetricValue> elements;
  switch (metric.value_case()) {
    case v1::Metric::kIntValue:
      return MetricValue::Int(metric.int_value());
    case v1::Metric::kDoubleValue:
      return MetricValue::Double(metric.double_value());
    case v1::Metric::kIntVector:
      for (int64_t v : metric.int_vector().values()) elements.push_back(MetricValue::Int(v));
      return MetricValue::Vector(std::move(elements));
    case v1::Metric::kDoubleVector:
      for (double v : metric.double_vector().values()) elements.push_back(MetricValue::Double(v));
      return MetricValue::Vector(std::move(elements));
    default:  // no value: a blank cell, 0 as one number
      return MetricValue();
  }
}

std::optional<double> NodeGpuTimeNs(const v1::TreeNode& node) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() == kGpuTimeMetric) return ValueOf(metric).AsDouble();
  }
  return std::nullopt;
}

MetricValue MetricValue::Count(uint64_t count) {
  if (count > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Double(static_cast<double>(count));
  }
  return Int(static_cast<int64_t>(count));
}

namespace {

// Whether two cells can be added or subtracted element by element: neither is a vector, or both
// are of one length. Blank and mismatched cells are dealt with before.
bool SameShape(const MetricValue& a, const MetricValue& b) {
  const bool a_vector = a.kind == MetricValue::Kind::kVector;
  const bool b_vector = b.kind == MetricValue::Kind::kVector;
  return a_vector == b_vector && a.elements.size() == b.elements.size();
}

}  // namespace

double MetricValue::AsDouble() const {
  switch (kind) {
    case Kind::kInt:
      return static_cast<double>(i);
    case Kind::kVector: {
      double sum = 0;
      for (const MetricValue& element : elements) sum += element.AsDouble();
      return sum;
    }
    default:
      return d;
  }
}

void MetricValue::Add(const MetricValue& other) {
  if (other.kind == Kind::kBlank || kind == Kind::kMismatch) return;
  int64_t sum;
  if (kind == Kind::kBlank) {
    *this = other;
  } else if (other.kind == Kind::kMismatch || !SameShape(*this, other)) {
    *this = MetricValue{Kind::kMismatch, 0, 0, {}};
  } else if (kind == Kind::kVector) {
    for (size_t e = 0; e < elements.size(); ++e) elements[e].Add(other.elements[e]);
  } else if (kind == Kind::kInt && other.kind == Kind::kInt &&
             !__builtin_add_overflow(i, other.i, &sum)) {
    i = sum;
  } else {
    *this = Double(AsDouble() + other.AsDouble());
  }
}

MetricValue MetricValue::Minus(const MetricValue& other) const {
  if (other.blank()) return *this;
  if (kind == Kind::kMismatch || other.kind == Kind::kMismatch ||
      (!blank() && !SameShape(*this, other))) {
    return MetricValue{Kind::kMismatch, 0, 0, {}};
  }
  if (other.kind == Kind::kVector) {  // element-wise; a blank minuend is a vector of zeros
    std::vector<MetricValue> difference;
    for (size_t e = 0; e < other.elements.size(); ++e) {
      difference.push_back((blank() ? MetricValue() : elements[e]).Minus(other.elements[e]));
    }
    return Vector(std::move(difference));
  }
  const MetricValue minuend = blank() ? Int(0) : *this;
  int64_t difference;
  if (minuend.kind == Kind::kInt && other.kind == Kind::kInt &&
      !__builtin_sub_overflow(minuend.i, other.i, &difference)) {
    return Int(difference);
  }
  return Double(minuend.AsDouble() - other.AsDouble());
}

std::string MetricValue::Format() const {
  constexpr double kScientificFrom = 1e15;
  switch (kind) {
    case Kind::kBlank:
      return "";
    case Kind::kInt:
      return absl::StrCat(i);
    case Kind::kDouble:
      return std::fabs(d) >= kScientificFrom ? absl::StrFormat("%.3e", d)
                                             : absl::StrFormat("%.3f", d);
    case Kind::kVector:
      return absl::StrCat(
          "[",
          absl::StrJoin(elements, ", ",
                        [](std::string* out, const MetricValue& e) { out->append(e.Format()); }),
          "]");
    case Kind::kMismatch:
      return "size mismatch";
  }
  return "";
}

std::vector<MetricValue> ComputeColumn(const v1::Tree& tree, const TreeShape& shape,
                                       const MetricColumn& column) {
  Values values = RawValues(tree, shape, column);
  if (!column.percent) return values;
  const MetricValue total = column.percent_total.has_value()
                                ? MetricValue::Double(*column.percent_total)
                                : Total(column, values);
  return Divide(values, Values(values.size(), total), 0.01);
}

std::optional<double> PercentTotal(const v1::Tree& tree, const TreeShape& shape,
                                   const MetricColumn& column) {
  const MetricValue total = Total(column, RawValues(tree, shape, column));
  if (total.blank()) return std::nullopt;
  return total.AsDouble();
}

}  // namespace protond::view
