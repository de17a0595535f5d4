// --diff: two profiles' trees matched frame by frame (the same names from ROOT down), and each
// metric column's values subtracted, as hatchet's GraphFrame.sub does for proton-viewer. Pure
// functions; no I/O.
#ifndef PROTOND_VIEW_TREE_TREE_DIFF_H_
#define PROTOND_VIEW_TREE_TREE_DIFF_H_

#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"
#include "view/render/metric_values.h"
#include "view/render/tree_shape.h"

namespace protond::view {

// A tree with each metric column's value per node: `values[c][i]` is column c at node i.
struct TreeValues {
  v1::Tree tree;
  TreeShape shape;
  std::vector<std::vector<MetricValue>> values;
};

// The frames of both trees: `profile`'s nodes, then the frames only `base` has, each under its
// matched parent; node i has id i. Each value is `profile`'s minus `base`'s for the same frame,
// a missing value counting as zero (so a metric only one side has still shows a difference).
// Both must have the same columns; sibling frames with the same name match the first of them.
absl::StatusOr<TreeValues> DiffTrees(const TreeValues& profile, const TreeValues& base);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_TREE_DIFF_H_
