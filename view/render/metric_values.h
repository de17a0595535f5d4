// The values of one metric column (metric_spec.h) for every node of a tree: raw metrics summed
// as their aggregation says, CPU timings, and the derived metrics (times, rates, util, percent).
// Pure functions; no I/O.
#ifndef PROTOND_VIEW_RENDER_METRIC_VALUES_H_
#define PROTOND_VIEW_RENDER_METRIC_VALUES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protond.pb.h"
#include "view/render/metric_spec.h"
#include "view/render/tree_shape.h"

namespace protond::view {

// One cell: blank, an integer, a float, or a vector metric's elements (integers or floats). A
// vector adds and subtracts element-wise; where two vectors of different lengths (or a vector
// and a number) meet, as trees of different sessions can in a diff or a job's tree, the cell says
// so rather than guess ("size mismatch").
struct MetricValue {
  enum class Kind { kBlank, kInt, kDouble, kVector, kMismatch };
  Kind kind = Kind::kBlank;
  int64_t i = 0;
  double d = 0;
  std::vector<MetricValue> elements;  // kVector: kInt or kDouble cells

  static MetricValue Int(int64_t v) { return {Kind::kInt, v, 0, {}}; }
  static MetricValue Double(double v) { return {Kind::kDouble, 0, v, {}}; }
  static MetricValue Vector(std::vector<MetricValue> elements) {
    return {Kind::kVector, 0, 0, std::move(elements)};
  }
  // A count (uint64): an integer while int64 holds it, else a float, never a negative number.
  static MetricValue Count(uint64_t count);
  bool blank() const { return kind == Kind::kBlank; }
  // A vector stands for the sum of its elements where one number is needed: sorting, --threshold,
  // percentages and rates, flame graph widths.
  double AsDouble() const;

  // Sums as Proton does, a float making the sum a float, except that an integer sum past int64
  // becomes a float too (where Proton's wraps around): right in sign and size, if not exact.
  void Add(const MetricValue& other);
  // `this - other`, a blank counting as zero; blank when both are. Past int64, a float.
  MetricValue Minus(const MetricValue& other) const;
  // Integers as integers, blank as ""; floats with 3 decimals, or from 1e15 on (where a double's
  // decimals are noise, and 1e308 would take 300 digits) in scientific notation: "1.798e+308";
  // a vector as its elements so written, "[1, 2, 3]".
  std::string Format() const;
};

// A metric's cell: its number, a vector metric's elements, or blank for a metric without a value.
// Where one number is needed (roofline figures, rates), ValueOf(metric).AsDouble() is it: a
// vector's sum, 0 for blank.
MetricValue ValueOf(const v1::Metric& metric);

// A GPU node's "time (ns)" (kernels, copies, sets); nullopt for a node without GPU time.
std::optional<double> NodeGpuTimeNs(const v1::TreeNode& node);

// One value per node of `tree`, by index (see metric_spec.h for what each source means). GPU
// time, rates and avg_time are inclusive: a scope shows the sums over the kernels under it.
// util is blank except on GPU nodes whose device the peak table knows.
std::vector<MetricValue> ComputeColumn(const v1::Tree& tree, const TreeShape& shape,
                                       const MetricColumn& column);

// What 100% is for a "<metric>/%" column in `tree`: ROOT's value for summed metrics and the
// scopes' CPU time, else the sum over the other nodes (count, exclusive metrics, properties).
// nullopt when there is none.
std::optional<double> PercentTotal(const v1::Tree& tree, const TreeShape& shape,
                                   const MetricColumn& column);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_METRIC_VALUES_H_
