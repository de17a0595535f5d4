#include "cli/render/metric_spec.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

using Source = MetricColumn::Source;

struct TimeUnit {
  absl::string_view name;
  double ns_per_unit;
};
constexpr TimeUnit kTimeUnits[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};

struct TimeMetric {
  absl::string_view name;
  Source source;
};
constexpr TimeMetric kTimeMetrics[] = {{"cpu_time", Source::kCpuTime},
                                       {"avg_cpu_time", Source::kAvgCpuTime},
                                       {"min_cpu_time", Source::kMinCpuTime},
                                       {"max_cpu_time", Source::kMaxCpuTime}};

// The user metrics of `tree`, each once, in pre-order of first appearance.
std::vector<const v1::Metric*> UserMetrics(const v1::Tree& tree) {
  std::vector<const v1::Metric*> metrics;
  absl::flat_hash_set<absl::string_view> seen;
  for (const v1::TreeNode& node : tree.nodes()) {
    for (const v1::Metric& metric : node.metrics()) {
      if (seen.insert(metric.name()).second) metrics.push_back(&metric);
    }
  }
  return metrics;
}

const TimeUnit* FindUnit(absl::string_view name) {
  for (const TimeUnit& unit : kTimeUnits) {
    if (name == unit.name) return &unit;
  }
  return nullptr;
}

bool HasGpuTime(const std::vector<const v1::Metric*>& user_metrics) {
  for (const v1::Metric* metric : user_metrics) {
    if (metric->name() == kGpuTimeMetric) return true;
  }
  return false;
}

// "count", "cpu_time/ms", "time/ms" and the like, already lower-cased.
bool ParseBuiltin(absl::string_view name, const std::vector<const v1::Metric*>& user_metrics,
                  MetricColumn* column) {
  if (name == "count") {
    column->source = Source::kCount;
    column->header = "count";
    return true;
  }
  std::pair<absl::string_view, absl::string_view> parts = absl::StrSplit(name, '/');
  const TimeUnit* unit = FindUnit(parts.second);
  if (unit == nullptr) return false;
  column->ns_per_unit = unit->ns_per_unit;
  column->header = absl::StrCat(parts.first, " (", unit->name, ")");
  if (parts.first == "time" && HasGpuTime(user_metrics)) {
    column->source = Source::kUserMetric;
    column->user_metric = kGpuTimeMetric;
    column->aggregation = v1::Metric::INCLUSIVE;
    return true;
  }
  for (const TimeMetric& metric : kTimeMetrics) {
    if (parts.first != metric.name) continue;
    column->source = metric.source;
    return true;
  }
  return false;
}

// A user metric matches by its full name or by the part before its unit, case-insensitively.
bool MatchesUserMetric(absl::string_view lower_name, absl::string_view stored) {
  std::string full = absl::AsciiStrToLower(stored);
  absl::string_view no_unit =
      absl::StripAsciiWhitespace(absl::string_view(full).substr(0, full.find('(')));
  return lower_name == full || lower_name == no_unit;
}

absl::Status UnknownMetricError(absl::string_view name, const v1::Tree& tree) {
  return absl::InvalidArgumentError(absl::StrCat(
      "metric \"", name,
      "\" is not found; available metrics: ", absl::StrJoin(AvailableMetricNames(tree), ", ")));
}

absl::StatusOr<MetricColumn> ParseOne(absl::string_view name, const v1::Tree& tree,
                                      const std::vector<const v1::Metric*>& user_metrics) {
  std::string lower = absl::AsciiStrToLower(name);
  MetricColumn column;
  if (ParseBuiltin(lower, user_metrics, &column)) return column;
  for (const v1::Metric* metric : user_metrics) {
    if (!MatchesUserMetric(lower, metric->name())) continue;
    column.source = Source::kUserMetric;
    column.ns_per_unit = 1;
    column.user_metric = metric->name();
    if (metric->aggregation() != v1::Metric::AGGREGATION_UNSPECIFIED) {
      column.aggregation = metric->aggregation();
    }
    column.header = metric->name();
    return column;
  }
  return UnknownMetricError(name, tree);
}

}  // namespace

absl::StatusOr<std::vector<MetricColumn>> ParseMetricSpec(std::string_view spec_text,
                                                          const v1::Tree& tree) {
  // Debian's Abseil has its own string_view type.
  absl::string_view spec(spec_text.data(), spec_text.size());
  if (absl::StripAsciiWhitespace(spec).empty()) spec = kDefaultMetricSpec;
  const std::vector<const v1::Metric*> user_metrics = UserMetrics(tree);
  std::vector<MetricColumn> columns;
  for (absl::string_view item : absl::StrSplit(spec, ',')) {
    absl::string_view name = absl::StripAsciiWhitespace(item);
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("empty metric name in \"", spec, "\""));
    }
    ASSIGN_OR_RETURN(MetricColumn column, ParseOne(name, tree, user_metrics));
    columns.push_back(std::move(column));
  }
  return columns;
}

std::vector<std::string> AvailableMetricNames(const v1::Tree& tree) {
  std::vector<std::string> names = {"count"};
  const std::vector<const v1::Metric*> user_metrics = UserMetrics(tree);
  if (HasGpuTime(user_metrics)) names.push_back("time/ns|us|ms|s");
  for (const TimeMetric& metric : kTimeMetrics) {
    names.push_back(absl::StrCat(metric.name, "/ns|us|ms|s"));
  }
  for (const v1::Metric* metric : user_metrics) names.push_back(metric->name());
  return names;
}

}  // namespace protond::cli
