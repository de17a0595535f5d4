#include "view/render/metric_spec.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::view {
namespace {

using ::testing::ElementsAre;
using Source = MetricColumn::Source;

v1::Tree TreeWithMetrics() {
  v1::Tree tree;
  tree.add_nodes()->set_name("ROOT");
  v1::TreeNode* kernel = tree.add_nodes();
  kernel->set_id(1);
  kernel->set_name("kernel");
  for (auto [name, aggregation] : {std::pair{"flops", v1::Metric::INCLUSIVE},
                                   {"cpu_time (ns)", v1::Metric::EXCLUSIVE},
                                   {"Bytes", v1::Metric::AGGREGATION_UNSPECIFIED}}) {
    v1::Metric* metric = kernel->add_metrics();
    metric->set_name(name);
    metric->set_aggregation(aggregation);
    metric->set_int_value(1);
  }
  return tree;
}

std::vector<std::string> Headers(const std::vector<MetricColumn>& columns) {
  std::vector<std::string> headers;
  for (const MetricColumn& column : columns) headers.push_back(column.header);
  return headers;
}

TEST(MetricSpecTest, EmptySpecIsCpuTimeInMilliseconds) {
  v1::Tree tree = TreeWithMetrics();
  tree.mutable_nodes(1)->set_duration_ns_sum(5);
  absl::StatusOr<std::vector<MetricColumn>> columns = ParseMetricSpec("", tree);
  ASSERT_TRUE(columns.ok()) << columns.status();
  ASSERT_EQ(columns->size(), 1u);
  EXPECT_EQ((*columns)[0].source, Source::kCpuTime);
  EXPECT_EQ((*columns)[0].divisor, 1e6);
  EXPECT_EQ((*columns)[0].header, "cpu_time (ms)");
}

TEST(MetricSpecTest, BuiltinsAreCaseInsensitiveWithEveryUnit) {
  absl::StatusOr<std::vector<MetricColumn>> columns = ParseMetricSpec(
      "COUNT, Cpu_Time/S,avg_cpu_time/us,MIN_CPU_TIME/ns,max_cpu_time/MS", v1::Tree());
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_THAT(Headers(*columns), ElementsAre("count", "cpu_time (s)", "avg_cpu_time (us)",
                                             "min_cpu_time (ns)", "max_cpu_time (ms)"));
  EXPECT_EQ((*columns)[1].divisor, 1e9);
  EXPECT_EQ((*columns)[2].source, Source::kAvgCpuTime);
  EXPECT_EQ((*columns)[2].divisor, 1e3);
  EXPECT_EQ((*columns)[3].source, Source::kMinCpuTime);
  EXPECT_EQ((*columns)[3].divisor, 1);
  EXPECT_EQ((*columns)[4].source, Source::kMaxCpuTime);
}

TEST(MetricSpecTest, UserMetricsMatchByFullNameOrWithoutUnit) {
  absl::StatusOr<std::vector<MetricColumn>> columns =
      ParseMetricSpec("FLOPS,cpu_time (NS),cpu_time,bytes", TreeWithMetrics());
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_THAT(Headers(*columns), ElementsAre("flops", "cpu_time (ns)", "cpu_time (ns)", "Bytes"));
  EXPECT_EQ((*columns)[0].source, Source::kUserMetric);
  EXPECT_EQ((*columns)[0].user_metric, "flops");
  EXPECT_EQ((*columns)[0].aggregation, v1::Metric::INCLUSIVE);
  EXPECT_EQ((*columns)[1].user_metric, "cpu_time (ns)");
  EXPECT_EQ((*columns)[1].aggregation, v1::Metric::EXCLUSIVE);
  EXPECT_EQ((*columns)[3].user_metric, "Bytes");
  EXPECT_EQ((*columns)[3].aggregation, v1::Metric::INCLUSIVE);  // unspecified reads as inclusive
}

TEST(MetricSpecTest, TimeIsTheGpuTimeWhenTheTreeHasIt) {
  v1::Tree tree = TreeWithMetrics();
  EXPECT_FALSE(ParseMetricSpec("time/ms", tree).ok());
  v1::Metric* time = tree.mutable_nodes(1)->add_metrics();
  time->set_name("time (ns)");
  time->set_int_value(5);
  absl::StatusOr<std::vector<MetricColumn>> columns = ParseMetricSpec("Time/us,time", tree);
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_THAT(Headers(*columns), ElementsAre("time (us)", "time (ns)"));
  EXPECT_EQ((*columns)[0].source, Source::kUserMetric);
  EXPECT_EQ((*columns)[0].user_metric, "time (ns)");
  EXPECT_EQ((*columns)[0].divisor, 1e3);
  EXPECT_EQ((*columns)[1].divisor, 1);
  EXPECT_EQ(AvailableMetricNames(tree)[1], "time/ns|us|ms|s");
}

TEST(MetricSpecTest, UnknownMetricNamesItAndListsTheAvailableOnes) {
  absl::StatusOr<std::vector<MetricColumn>> columns =
      ParseMetricSpec("count,Tflop/s", TreeWithMetrics());
  EXPECT_EQ(columns.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(columns.status().message(),
            "metric \"Tflop/s\" is not found; available metrics: count, cpu_time/ns|us|ms|s, "
            "avg_cpu_time/ns|us|ms|s, min_cpu_time/ns|us|ms|s, max_cpu_time/ns|us|ms|s, flops, "
            "cpu_time (ns), Bytes, <metric>/%");
}

TEST(MetricSpecTest, UnknownUnitIsAnUnknownMetric) {
  absl::StatusOr<std::vector<MetricColumn>> columns = ParseMetricSpec("cpu_time/min", v1::Tree());
  EXPECT_EQ(columns.status().message(),
            "metric \"cpu_time/min\" is not found; available metrics: count, "
            "cpu_time/ns|us|ms|s, avg_cpu_time/ns|us|ms|s, min_cpu_time/ns|us|ms|s, "
            "max_cpu_time/ns|us|ms|s, <metric>/%");
}

TEST(MetricSpecTest, EmptyItemIsAnError) {
  absl::StatusOr<std::vector<MetricColumn>> columns = ParseMetricSpec("count,,flops", v1::Tree());
  EXPECT_EQ(columns.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(columns.status().message(), "empty metric name in \"count,,flops\"");
}

TEST(MetricSpecTest, AvailableNamesListEachUserMetricOnce) {
  v1::Tree tree = TreeWithMetrics();
  *tree.add_nodes() = tree.nodes(1);
  tree.mutable_nodes(2)->set_id(2);
  EXPECT_THAT(AvailableMetricNames(tree),
              ElementsAre("count", "cpu_time/ns|us|ms|s", "avg_cpu_time/ns|us|ms|s",
                          "min_cpu_time/ns|us|ms|s", "max_cpu_time/ns|us|ms|s", "flops",
                          "cpu_time (ns)", "Bytes", "<metric>/%"));
}

}  // namespace
}  // namespace protond::view
