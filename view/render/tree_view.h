// Renders a session's call tree (protond.v1.Tree) as text, the way proton-viewer prints a
// profile through hatchet's tree printer: metric columns, then the tree glyphs and the name.
// Pure functions; no I/O.
#ifndef PROTOND_VIEW_RENDER_TREE_VIEW_H_
#define PROTOND_VIEW_RENDER_TREE_VIEW_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"
#include "view/render/metric_spec.h"
#include "view/render/metric_values.h"
#include "view/render/tree_shape.h"

namespace protond::view {

// proton-viewer's default for -d.
inline constexpr int kDefaultTreeDepth = 100;

// One header line (the column headers), then one line per node: a right-aligned cell per column,
// two spaces, the glyphs ("├─ ", "└─ " under "│  " or "   ") and the name. Children print in
// message order. A node prints when its depth is below `depth` (ROOT is depth 0), as in
// hatchet: depth 1 prints ROOT alone.
//
// Values are ComputeColumn's (metric_values.h): count and the cpu-time columns come from the
// node itself (blank when it has no completed instance; ROOT aggregates its direct children).
// User metrics: INCLUSIVE ones are the node's value plus all its descendants', EXCLUSIVE and
// PROPERTY ones the node's own value; blank where there is none. Floats print with 3 decimals,
// integers as integers.
//
// The tree must have a valid shape (CheckTreeShape); otherwise InvalidArgumentError. A tree
// without nodes prints the header alone.
absl::StatusOr<std::string> RenderTree(const v1::Tree& tree,
                                       const std::vector<MetricColumn>& columns,
                                       int depth = kDefaultTreeDepth);

// The same layout with values given by the caller (a diff of two trees, say): `values[c][i]` is
// column c's value for node i. With `colour`, for a terminal, the first column's values are
// coloured by their band among the values printed, and its legend follows the tree
// (colour_bands.h).
std::string RenderTreeValues(const v1::Tree& tree, const TreeShape& shape,
                             const std::vector<MetricColumn>& columns,
                             const std::vector<std::vector<MetricValue>>& values, int depth,
                             bool colour);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_TREE_VIEW_H_
