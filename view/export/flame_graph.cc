#include "view/export/flame_graph.h"

#include <algorithm>

#include "common/status/status_macros.h"
#include "view/render/metric_spec.h"
#include "view/render/metric_values.h"
#include "view/tree/frame_filter.h"
#include "view/tree/frame_names.h"

namespace protond::view {
namespace {

constexpr char kGpuTimeNs[] = "time/ns";
constexpr char kCpuTimeNs[] = "cpu_time/ns";

absl::StatusOr<MetricColumn> ParseFirstMetric(const std::string& metric, const v1::Tree& tree) {
  std::string spec = metric;
  // time/ns parses only where the tree has GPU time.
  if (spec.empty()) spec = ParseMetricSpec(kGpuTimeNs, tree).ok() ? kGpuTimeNs : kCpuTimeNs;
  ASSIGN_OR_RETURN(std::vector<MetricColumn> columns, ParseMetricSpec(spec, tree));
  return columns.front();
}

}  // namespace

absl::StatusOr<FlameGraph> BuildFlameGraph(const v1::Tree& profile, const std::string& metric,
                                           KernelNames names) {
  ASSIGN_OR_RETURN(const TreeShape profile_shape, CheckTreeShape(profile));
  v1::Tree tree = DropHiddenFrames(profile, profile_shape);
  RenameFrames(FrameFormat::kFull, names, &tree);
  FlameGraph graph;
  ASSIGN_OR_RETURN(graph.shape, CheckTreeShape(tree));
  ASSIGN_OR_RETURN(const MetricColumn column, ParseFirstMetric(metric, tree));
  graph.metric = column.header;
  const std::vector<MetricValue> values = ComputeColumn(tree, graph.shape, column);
  const int n = tree.nodes_size();
  graph.names.resize(n);
  graph.total.resize(n);
  graph.self.resize(n);
  // Children follow their parents: from the back, every child is final before its parent.
  std::vector<double> children_total(n);
  for (int i = n - 1; i >= 0; --i) {
    graph.names[i] = tree.nodes(i).name();
    const double own = values[i].blank() ? 0 : std::max(0.0, values[i].AsDouble());
    graph.total[i] = std::max(own, children_total[i]);
    graph.self[i] = graph.total[i] - children_total[i];
    if (i > 0) children_total[graph.shape.parent[i]] += graph.total[i];
  }
  return graph;
}

}  // namespace protond::view
