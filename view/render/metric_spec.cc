#include "view/render/metric_spec.h"

#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/status/status_macros.h"

namespace protond::view {
namespace {

using Source = MetricColumn::Source;

struct Unit {
  absl::string_view name;
  double divisor;
};
constexpr Unit kTimeUnits[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
constexpr Unit kRatePrefixes[] = {{"", 1}, {"g", 1e9}, {"t", 1e12}};

struct TimeMetric {
  absl::string_view name;
  Source source;
};
constexpr TimeMetric kCpuTimeMetrics[] = {{"cpu_time", Source::kCpuTime},
                                          {"avg_cpu_time", Source::kAvgCpuTime},
                                          {"min_cpu_time", Source::kMinCpuTime},
                                          {"max_cpu_time", Source::kMaxCpuTime}};

// Proton's cpu_timed_scope metric: cpu_time/<unit> reads it where there are no scope timings.
constexpr char kCpuTimeMetric[] = "cpu_time (ns)";

// What -m can refer to in a tree: its user metrics, each once, in pre-order of first appearance.
struct TreeMetrics {
  std::vector<const v1::Metric*> user;
  bool has_gpu_time = false;
  bool has_scope_timings = false;

  const v1::Metric* Find(absl::string_view stored_name) const {
    for (const v1::Metric* metric : user) {
      if (metric->name() == stored_name) return metric;
    }
    return nullptr;
  }
};

TreeMetrics CollectMetrics(const v1::Tree& tree) {
  TreeMetrics metrics;
  absl::flat_hash_set<absl::string_view> seen;
  for (const v1::TreeNode& node : tree.nodes()) {
    if (node.duration_ns_sum() > 0) metrics.has_scope_timings = true;
    for (const v1::Metric& metric : node.metrics()) {
      if (seen.insert(metric.name()).second) metrics.user.push_back(&metric);
    }
  }
  metrics.has_gpu_time = metrics.Find(kGpuTimeMetric) != nullptr;
  return metrics;
}

const Unit* FindUnit(absl::string_view name, absl::Span<const Unit> units) {
  for (const Unit& unit : units) {
    if (name == unit.name) return &unit;
  }
  return nullptr;
}

// A user metric matches by its full name or by the part before its unit, case-insensitively.
bool MatchesUserMetric(absl::string_view lower_name, absl::string_view stored) {
  std::string full = absl::AsciiStrToLower(stored);
  absl::string_view no_unit =
      absl::StripAsciiWhitespace(absl::string_view(full).substr(0, full.find('(')));
  return lower_name == full || lower_name == no_unit;
}

const v1::Metric* MatchUserMetric(absl::string_view lower_name, const TreeMetrics& metrics) {
  for (const v1::Metric* metric : metrics.user) {
    if (MatchesUserMetric(lower_name, metric->name())) return metric;
  }
  return nullptr;
}

void SetUserMetric(const v1::Metric& metric, MetricColumn* column) {
  column->user_metric = metric.name();
  if (metric.aggregation() != v1::Metric::AGGREGATION_UNSPECIFIED) {
    column->aggregation = metric.aggregation();
  }
}

// "time/ms", "avg_time/us", "cpu_time/s" and the other CPU timings.
bool ParseTime(absl::string_view name, const TreeMetrics& metrics, MetricColumn* column) {
  std::pair<absl::string_view, absl::string_view> parts = absl::StrSplit(name, '/');
  const Unit* unit = FindUnit(parts.second, kTimeUnits);
  if (unit == nullptr) return false;
  column->divisor = unit->divisor;
  column->header = absl::StrCat(parts.first, " (", unit->name, ")");
  if ((parts.first == "time" || parts.first == "avg_time") && metrics.has_gpu_time) {
    column->source = parts.first == "time" ? Source::kUserMetric : Source::kAvgGpuTime;
    column->user_metric = kGpuTimeMetric;
    return true;
  }
  const v1::Metric* cpu_time = metrics.Find(kCpuTimeMetric);
  if (parts.first == "cpu_time" && !metrics.has_scope_timings && cpu_time != nullptr) {
    column->source = Source::kUserMetric;
    SetUserMetric(*cpu_time, column);
    return true;
  }
  for (const TimeMetric& metric : kCpuTimeMetrics) {
    if (parts.first != metric.name) continue;
    column->source = metric.source;
    return true;
  }
  return false;
}

// "<prefix>flop<width>/s" from "flops<width>", "<prefix>byte/s" from "bytes".
bool ParseRate(absl::string_view name, const TreeMetrics& metrics, MetricColumn* column) {
  if (!metrics.has_gpu_time || !absl::ConsumeSuffix(&name, "/s")) return false;
  for (const Unit& prefix : kRatePrefixes) {
    absl::string_view rest = name;
    if (!absl::ConsumePrefix(&rest, prefix.name)) continue;
    std::string source;
    if (rest == "byte") {
      source = "bytes";
    } else if (absl::ConsumePrefix(&rest, "flop")) {
      source = absl::StrCat("flops", rest);
    } else {
      continue;
    }
    const v1::Metric* metric = MatchUserMetric(source, metrics);
    if (metric == nullptr) return false;
    column->source = Source::kRate;
    column->divisor = prefix.divisor;
    SetUserMetric(*metric, column);
    column->header = std::string(name) + "/s";
    return true;
  }
  return false;
}

bool ParseBuiltin(absl::string_view name, const TreeMetrics& metrics, MetricColumn* column) {
  if (name == "count") {
    column->source = Source::kCount;
    column->divisor = 1;
    column->header = "count";
    return true;
  }
  if (name == "util" && metrics.has_gpu_time) {
    column->source = Source::kUtil;
    column->divisor = 1;
    column->header = "util";
    return true;
  }
  return ParseTime(name, metrics, column) || ParseRate(name, metrics, column);
}

absl::Status UnknownMetricError(absl::string_view name, const v1::Tree& tree) {
  return absl::InvalidArgumentError(absl::StrCat(
      "metric \"", name,
      "\" is not found; available metrics: ", absl::StrJoin(AvailableMetricNames(tree), ", ")));
}

// A name without "/%"; nullopt when the tree has no such metric.
std::optional<MetricColumn> ParseValue(absl::string_view lower, const TreeMetrics& metrics) {
  MetricColumn column;
  if (ParseBuiltin(lower, metrics, &column)) return column;
  const v1::Metric* metric = MatchUserMetric(lower, metrics);
  if (metric == nullptr) return std::nullopt;
  column.source = Source::kUserMetric;
  column.divisor = 1;
  SetUserMetric(*metric, &column);
  column.header = metric->name();
  return column;
}

absl::StatusOr<MetricColumn> ParseOne(absl::string_view name, const v1::Tree& tree,
                                      const TreeMetrics& metrics) {
  std::string lower = absl::AsciiStrToLower(name);
  absl::string_view value_name = lower;
  const bool percent = absl::ConsumeSuffix(&value_name, "/%");
  std::optional<MetricColumn> column = ParseValue(value_name, metrics);
  // "cpu_time/%" of a session: its scopes' time, in any unit.
  if (!column.has_value() && percent) column = ParseValue(absl::StrCat(value_name, "/ns"), metrics);
  // A percent of a rate, an average or util would mean nothing.
  if (!column.has_value() ||
      (percent && column->source != Source::kCount && column->source != Source::kCpuTime &&
       column->source != Source::kUserMetric)) {
    return UnknownMetricError(name, tree);
  }
  if (percent) {
    column->percent = true;
    column->header = lower;
  }
  return *column;
}

}  // namespace

absl::StatusOr<std::vector<MetricColumn>> ParseMetricSpec(std::string_view spec_text,
                                                          const v1::Tree& tree) {
  // Debian's Abseil has its own string_view type.
  absl::string_view spec(spec_text.data(), spec_text.size());
  const TreeMetrics metrics = CollectMetrics(tree);
  if (absl::StripAsciiWhitespace(spec).empty()) {
    spec = metrics.has_gpu_time && !metrics.has_scope_timings ? kDefaultGpuMetricSpec
                                                              : kDefaultMetricSpec;
  }
  std::vector<MetricColumn> columns;
  for (absl::string_view item : absl::StrSplit(spec, ',')) {
    absl::string_view name = absl::StripAsciiWhitespace(item);
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("empty metric name in \"", spec, "\""));
    }
    ASSIGN_OR_RETURN(MetricColumn column, ParseOne(name, tree, metrics));
    columns.push_back(std::move(column));
  }
  return columns;
}

std::vector<std::string> AvailableMetricNames(const v1::Tree& tree) {
  const TreeMetrics metrics = CollectMetrics(tree);
  std::vector<std::string> names = {"count"};
  if (metrics.has_gpu_time) {
    names.push_back("time/ns|us|ms|s");
    names.push_back("avg_time/ns|us|ms|s");
  }
  for (const TimeMetric& metric : kCpuTimeMetrics) {
    names.push_back(absl::StrCat(metric.name, "/ns|us|ms|s"));
  }
  if (metrics.has_gpu_time) {
    for (absl::string_view width : {"", "8", "16", "32", "64"}) {
      if (MatchUserMetric(absl::StrCat("flops", width), metrics) == nullptr) continue;
      names.push_back(absl::StrCat("flop", width, "/s|gflop", width, "/s|tflop", width, "/s"));
    }
    if (MatchUserMetric("bytes", metrics) != nullptr) names.push_back("byte/s|gbyte/s|tbyte/s");
    names.push_back("util");
  }
  for (const v1::Metric* metric : metrics.user) names.push_back(metric->name());
  names.push_back("<metric>/%");
  return names;
}

}  // namespace protond::view
