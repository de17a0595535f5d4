// Parses protonctl's -m option: proton-viewer's metric names, checked against the metrics a tree
// holds, into the columns the tree view prints. Pure functions; no I/O.
#ifndef PROTOND_VIEW_RENDER_METRIC_SPEC_H_
#define PROTOND_VIEW_RENDER_METRIC_SPEC_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view {

// One column of the tree view: which value of a TreeNode it shows, and how.
struct MetricColumn {
  enum class Source {
    kCount,  // the node's own count: scope instances, or a kernel's launches
    // The node's own CPU timings of its scope instances (ROOT: its children's, combined).
    kCpuTime,
    kAvgCpuTime,
    kMinCpuTime,
    kMaxCpuTime,
    kUserMetric,  // `user_metric`, summed into parents when INCLUSIVE
    kAvgGpuTime,  // GPU time / GPU launches (the counts of nodes with GPU time)
    kRate,        // `user_metric` per second of GPU time
    kUtil,        // the share of the device's peak a kernel reached (device_peaks.h)
  };
  Source source = Source::kCpuTime;
  // What one displayed unit is in the raw value: nanoseconds for times (1e6 for ms), operations
  // or bytes for rates (1e12 for tflop/s), 1 for anything shown as it is.
  double divisor = 1e6;
  // For kUserMetric and kRate: the name as stored ("cpu_time (ns)", "flops16"), and its
  // aggregation as first seen in the tree in pre-order (UNSPECIFIED is read as INCLUSIVE,
  // Proton's default).
  std::string user_metric;
  v1::Metric::Aggregation aggregation = v1::Metric::INCLUSIVE;
  // "<metric>/%": the value as a percent of `percent_total`, by default PercentTotal's
  // (metric_values.h) for the tree the values are computed on.
  bool percent = false;
  std::optional<double> percent_total;
  std::string header;  // "cpu_time (ms)", "count", "flops", "tflop16/s"
};

// What protonctl shows when -m is not given: the CPU time of scopes, or the GPU time for a tree
// that has GPU time and no CPU timings (a Hatchet file).
inline constexpr char kDefaultMetricSpec[] = "cpu_time/ms";
inline constexpr char kDefaultGpuMetricSpec[] = "time/ms";

// GPU work's time, as Proton names it; kernels, copies and sets carry it.
inline constexpr char kGpuTimeMetric[] = "time (ns)";

// `spec` is -m's argument, "METRIC[,METRIC...]", case-insensitive, proton-viewer's names; empty
// means the default above. With <unit> one of ns, us, ms, s:
// - count; cpu_time/<unit> (scope time; in a tree without scope timings, the "cpu_time (ns)"
//   metric of Proton's cpu_timed_scope), avg_cpu_time/<unit>, min_cpu_time/<unit>,
//   max_cpu_time/<unit>;
// - when the tree has GPU time (kGpuTimeMetric): time/<unit>, avg_time/<unit> (time / launches),
//   flop/s, gflop/s, tflop/s from "flops", the same with a width (tflop16/s from "flops16"),
//   byte/s, gbyte/s, tbyte/s from "bytes", and util;
// - <metric>/% for count, cpu_time or a user metric (time/% is of the GPU time);
// - any user metric of `tree`, given in full ("cpu_time (ns)") or without its unit ("cpu_time"),
//   as proton-viewer accepts.
// An unknown name is an InvalidArgumentError that lists AvailableMetricNames(tree).
absl::StatusOr<std::vector<MetricColumn>> ParseMetricSpec(std::string_view spec,
                                                          const v1::Tree& tree);

// The names -m accepts for `tree` (protonctl's metric list): the built-ins first
// ("cpu_time/ns|us|ms|s" stands for four), then the derived ones the tree's metrics allow, then
// the user metrics in first-seen order, then "<metric>/%".
std::vector<std::string> AvailableMetricNames(const v1::Tree& tree);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_METRIC_SPEC_H_
