// proton-viewer's frame filters over a v1::Tree: hidden frames, -i/-e regular expressions and the
// -t threshold. Each returns a tree with the nodes it keeps, in the same order with the same ids;
// ROOT is always kept. Each takes the tree by value: moved in, no node is copied. The renderer
// recomputes every summed value over the nodes left, as hatchet's squash does. Pure functions; no
// I/O.
#ifndef PROTOND_VIEW_TREE_FRAME_FILTER_H_
#define PROTOND_VIEW_TREE_FRAME_FILTER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"
#include "view/render/metric_values.h"
#include "view/render/tree_shape.h"

namespace protond::view {

// Proton's launch-metadata state ("__proton_launch_metadata", and names that start with it and a
// colon) with everything under it, and frames left with neither metrics, count nor children.
// Unlike proton-viewer, a frame that has metrics is kept when all its children go.
v1::Tree DropHiddenFrames(v1::Tree tree, const TreeShape& shape);

// -i: the frames on a path through a frame whose name matches `regex` (from the start of the
// name, as Python's re.match): the matches, their ancestors and their descendants.
absl::StatusOr<v1::Tree> IncludeFrames(v1::Tree tree, const TreeShape& shape,
                                       const std::string& regex);

// -e: every frame but those whose name matches `regex` and their descendants.
absl::StatusOr<v1::Tree> ExcludeFrames(v1::Tree tree, const TreeShape& shape,
                                       const std::string& regex);

// -t: the frames whose value in `values` (one per node) is at least `threshold`, and their
// ancestors. Blank values are below any threshold.
v1::Tree KeepAtLeast(v1::Tree tree, const TreeShape& shape, const std::vector<MetricValue>& values,
                     double threshold);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_FRAME_FILTER_H_
