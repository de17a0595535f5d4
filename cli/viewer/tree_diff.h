// --diff: two profiles' trees matched frame by frame (the same names from ROOT down), and each
// metric column's values subtracted, as hatchet's GraphFrame.sub does for proton-viewer. Pure
// functions; no I/O.
#ifndef PROTOND_CLI_VIEWER_TREE_DIFF_H_
#define PROTOND_CLI_VIEWER_TREE_DIFF_H_

#include <vector>

#include "absl/status/statusor.h"
#include "cli/render/metric_spec.h"
#include "cli/render/metric_values.h"
#include "cli/render/tree_shape.h"
#include "protond.pb.h"

namespace protond::cli {

// The frames of both trees: `tree` holds `profile`'s nodes, then the frames only `base` has,
// each under its matched parent; node i has id i. `values[c][i]` is column c of `profile` minus
// column c of `base` at node i, a missing value counting as zero (so a metric only one side has
// still shows a difference).
struct TreeDiff {
  v1::Tree tree;
  TreeShape shape;
  std::vector<std::vector<MetricValue>> values;
};

// Both trees must have a valid shape (CheckTreeShape); sibling frames with the same name are
// matched to the first of them.
absl::StatusOr<TreeDiff> DiffTrees(const v1::Tree& profile, const v1::Tree& base,
                                   const std::vector<MetricColumn>& columns);

}  // namespace protond::cli

#endif  // PROTOND_CLI_VIEWER_TREE_DIFF_H_
