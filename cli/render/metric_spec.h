// Parses protonctl's -m option: proton-viewer's metric names, checked against the metrics a tree
// holds, into the columns the tree view prints. Pure functions; no I/O.
#ifndef PROTOND_CLI_RENDER_METRIC_SPEC_H_
#define PROTOND_CLI_RENDER_METRIC_SPEC_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::cli {

// One column of the tree view: which value of a TreeNode it shows, and how.
struct MetricColumn {
  enum class Source { kCount, kCpuTime, kAvgCpuTime, kMinCpuTime, kMaxCpuTime, kUserMetric };
  Source source = Source::kCpuTime;
  // For the cpu-time sources and "time/<unit>": nanoseconds per displayed unit (1, 1e3, 1e6 or
  // 1e9). User metrics are shown as they are (1).
  double ns_per_unit = 1e6;
  // For kUserMetric: the name as stored ("cpu_time (ns)"), and its aggregation as first seen in
  // the tree in pre-order (UNSPECIFIED is read as INCLUSIVE, Proton's default).
  std::string user_metric;
  v1::Metric::Aggregation aggregation = v1::Metric::INCLUSIVE;
  std::string header;  // "cpu_time (ms)", "count", "flops"
};

// What protonctl shows when -m is not given.
inline constexpr char kDefaultMetricSpec[] = "cpu_time/ms";

// GPU work's time, as Proton names it; kernels, copies and sets carry it.
inline constexpr char kGpuTimeMetric[] = "time (ns)";

// `spec` is -m's argument, "METRIC[,METRIC...]", case-insensitive; empty means
// kDefaultMetricSpec. Built-ins: count, cpu_time/<unit>, avg_cpu_time/<unit>,
// min_cpu_time/<unit>, max_cpu_time/<unit> with <unit> one of ns, us, ms, s; time/<unit> is the
// GPU time (kGpuTimeMetric, summed into parents) when the tree has GPU work. Any other name must
// be a user metric of `tree`, given in full ("cpu_time (ns)") or without its unit ("cpu_time"),
// as proton-viewer accepts. An unknown name is an InvalidArgumentError that lists the names
// AvailableMetricNames(tree) gives.
absl::StatusOr<std::vector<MetricColumn>> ParseMetricSpec(std::string_view spec,
                                                          const v1::Tree& tree);

// The names -m accepts for `tree` (protonctl's metric list): the built-ins first
// ("cpu_time/ns|us|ms|s" stands for four), then the user metrics in first-seen order.
std::vector<std::string> AvailableMetricNames(const v1::Tree& tree);

}  // namespace protond::cli

#endif  // PROTOND_CLI_RENDER_METRIC_SPEC_H_
