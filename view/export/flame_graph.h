// The frames of a flame graph, from a call tree and one metric: what the folded-stack and SVG
// exports draw. Pure functions; no I/O.
#ifndef PROTOND_VIEW_EXPORT_FLAME_GRAPH_H_
#define PROTOND_VIEW_EXPORT_FLAME_GRAPH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"
#include "view/render/tree_shape.h"
#include "view/tree/frame_names.h"

namespace protond::view {

// By node index of the tree after hidden frames are dropped; ROOT is index 0.
struct FlameGraph {
  std::vector<std::string> names;  // short unless asked otherwise (frame_names.h KernelNames)
  TreeShape shape;
  // A frame's width: its value, or the sum of its children's widths when that is larger, so
  // that children always fit in their parent (a scope's wall time on one thread can be less than
  // the time of the work its threads did under it; a count is not summed into parents).
  std::vector<double> total;
  std::vector<double> self;  // total minus the children's totals: the frame's own part
  std::string metric;        // the column header: "time (ns)", "cpu_time (ns)"
};

// `metric` is one name as -m reads it (metric_spec.h), the first when several are given; empty
// means GPU time in ns when the tree has GPU time, else the scopes' CPU time in ns. Blank and
// negative values count as 0. Hidden frames are dropped as in the tree view.
absl::StatusOr<FlameGraph> BuildFlameGraph(const v1::Tree& profile, const std::string& metric,
                                           KernelNames names);

}  // namespace protond::view

#endif  // PROTOND_VIEW_EXPORT_FLAME_GRAPH_H_
