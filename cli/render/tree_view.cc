#include "cli/render/tree_view.h"

#include <algorithm>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

using Source = MetricColumn::Source;

// One cell of the view: blank, an integer or a float.
struct Value {
  enum class Kind { kBlank, kInt, kDouble };
  Kind kind = Kind::kBlank;
  int64_t i = 0;
  double d = 0;

  static Value Int(int64_t v) { return {Kind::kInt, v, 0}; }
  static Value Double(double v) { return {Kind::kDouble, 0, v}; }
  double AsDouble() const { return kind == Kind::kInt ? static_cast<double>(i) : d; }

  // Sums as Proton does: integers wrap around like int64, a float makes the sum a float.
  void Add(const Value& other) {
    if (other.kind == Kind::kBlank) return;
    if (kind == Kind::kBlank) {
      *this = other;
    } else if (kind == Kind::kInt && other.kind == Kind::kInt) {
      i = static_cast<int64_t>(static_cast<uint64_t>(i) + static_cast<uint64_t>(other.i));
    } else {
      *this = Double(AsDouble() + other.AsDouble());
    }
  }

  std::string Format() const {
    switch (kind) {
      case Kind::kBlank:
        return "";
      case Kind::kInt:
        return absl::StrCat(i);
      case Kind::kDouble:
        return absl::StrFormat("%.3f", d);
    }
    return "";
  }
};

// The links of a checked tree, by node index: parents precede their children.
struct Shape {
  std::vector<int> parent;
  std::vector<int> depth;
  std::vector<std::vector<int>> children;  // in message order
};

absl::StatusOr<Shape> CheckShape(const v1::Tree& tree) {
  const int n = tree.nodes_size();
  Shape shape{std::vector<int>(n, -1), std::vector<int>(n, 0), std::vector<std::vector<int>>(n)};
  absl::flat_hash_map<uint32_t, int> index_of_id;
  for (int i = 0; i < n; ++i) {
    const v1::TreeNode& node = tree.nodes(i);
    if (i > 0) {
      auto parent = index_of_id.find(node.parent_id());
      if (parent == index_of_id.end()) {
        return absl::InvalidArgumentError(
            absl::StrFormat("tree node %u (%s) names parent %u, which does not precede it",
                            node.id(), node.name(), node.parent_id()));
      }
      shape.parent[i] = parent->second;
      shape.depth[i] = shape.depth[parent->second] + 1;
      shape.children[parent->second].push_back(i);
    }
    if (!index_of_id.emplace(node.id(), i).second) {
      return absl::InvalidArgumentError(
          absl::StrFormat("tree node id %u appears more than once", node.id()));
    }
  }
  return shape;
}

// ROOT has no timing of its own; it shows its direct children's, combined.
v1::TreeNode CombineTimings(const v1::Tree& tree, const std::vector<int>& nodes) {
  v1::TreeNode sum;
  for (int i : nodes) {
    const v1::TreeNode& node = tree.nodes(i);
    if (node.count() == 0) continue;
    sum.set_duration_ns_min(sum.count() == 0
                                ? node.duration_ns_min()
                                : std::min(sum.duration_ns_min(), node.duration_ns_min()));
    sum.set_duration_ns_max(std::max(sum.duration_ns_max(), node.duration_ns_max()));
    sum.set_count(sum.count() + node.count());
    sum.set_duration_ns_sum(sum.duration_ns_sum() + node.duration_ns_sum());
  }
  return sum;
}

Value TimingValue(const MetricColumn& column, const v1::TreeNode& node) {
  if (column.source == Source::kCount) return Value::Int(static_cast<int64_t>(node.count()));
  if (node.count() == 0) return Value();
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
      return Value();
  }
  return Value::Double(ns / column.ns_per_unit);
}

Value OwnUserValue(const v1::TreeNode& node, const std::string& name) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() != name) continue;
    if (metric.value_case() == v1::Metric::kIntValue) return Value::Int(metric.int_value());
    if (metric.value_case() == v1::Metric::kDoubleValue) {
      return Value::Double(metric.double_value());
    }
  }
  return Value();
}

// One value per node, by index.
std::vector<Value> ColumnValues(const v1::Tree& tree, const Shape& shape,
                                const MetricColumn& column) {
  const int n = tree.nodes_size();
  std::vector<Value> values(n);
  if (column.source != Source::kUserMetric) {
    for (int i = 0; i < n; ++i) {
      values[i] = i == 0 ? TimingValue(column, CombineTimings(tree, shape.children[0]))
                         : TimingValue(column, tree.nodes(i));
    }
    return values;
  }
  for (int i = 0; i < n; ++i) values[i] = OwnUserValue(tree.nodes(i), column.user_metric);
  if (column.aggregation == v1::Metric::INCLUSIVE) {
    // Children follow their parents, so one pass from the back folds each subtree into its top.
    for (int i = n - 1; i > 0; --i) values[shape.parent[i]].Add(values[i]);
  }
  if (column.ns_per_unit != 1) {  // "time/ms" of the GPU time in ns
    for (Value& value : values) {
      if (value.kind != Value::Kind::kBlank)
        value = Value::Double(value.AsDouble() / column.ns_per_unit);
    }
  }
  return values;
}

// The rows to print: each cell's text and each column's width.
struct View {
  const v1::Tree& tree;
  const Shape& shape;
  int depth;
  std::vector<std::vector<std::string>> cells;  // [column][node]
  std::vector<size_t> widths;
};

void AppendCells(const View& view, int node, std::string* out) {
  for (size_t c = 0; c < view.cells.size(); ++c) {
    const std::string& cell = view.cells[c][node];
    absl::StrAppend(out, std::string(view.widths[c] - cell.size(), ' '), cell, "  ");
  }
}

// hatchet's layout: a child's line starts with "├─ " ("└─ " for the last one), and the lines
// below it continue its parent's rail with "│  " ("   " below the last one).
void AppendSubtree(const View& view, int node, const std::string& glyphs,
                   const std::string& child_glyphs, std::string* out) {
  if (view.shape.depth[node] >= view.depth) return;
  AppendCells(view, node, out);
  absl::StrAppend(out, glyphs, view.tree.nodes(node).name(), "\n");
  const std::vector<int>& children = view.shape.children[node];
  for (size_t k = 0; k < children.size(); ++k) {
    const bool last = k + 1 == children.size();
    AppendSubtree(view, children[k], child_glyphs + (last ? "└─ " : "├─ "),
                  child_glyphs + (last ? "   " : "│  "), out);
  }
}

std::string HeaderLine(const std::vector<MetricColumn>& columns,
                       const std::vector<size_t>& widths) {
  std::vector<std::string> headers;
  for (size_t c = 0; c < columns.size(); ++c) {
    headers.push_back(absl::StrFormat("%*s", static_cast<int>(widths[c]), columns[c].header));
  }
  return absl::StrCat(absl::StrJoin(headers, "  "), "\n");
}

}  // namespace

absl::StatusOr<std::string> RenderTree(const v1::Tree& tree,
                                       const std::vector<MetricColumn>& columns, int depth) {
  ASSIGN_OR_RETURN(const Shape shape, CheckShape(tree));
  View view{tree, shape, depth, {}, {}};
  for (const MetricColumn& column : columns) {
    std::vector<std::string>& cells = view.cells.emplace_back();
    size_t width = column.header.size();
    for (const Value& value : ColumnValues(tree, shape, column)) {
      cells.push_back(value.Format());
      if (shape.depth[cells.size() - 1] < depth) width = std::max(width, cells.back().size());
    }
    view.widths.push_back(width);
  }
  std::string out = HeaderLine(columns, view.widths);
  if (tree.nodes_size() > 0) AppendSubtree(view, 0, "", "", &out);
  return out;
}

}  // namespace protond::cli
