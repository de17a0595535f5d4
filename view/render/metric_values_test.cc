#include "view/render/metric_values.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/render/tree_view.h"
#include "view/testing/test_profiles.h"

namespace protond::view {
namespace {

using testing::AddInt;
using testing::AddKernel;
using ::testing::ElementsAre;

// The work of view/hatchet/testdata/h100_proton.hatchet on an H100 SXM, chosen so that each
// kernel's bounds are round (see AddH100Matmul): 167.5 GB is 0.05 s at 3.35 TB/s, 4.947 TFLOP of
// TF32 0.01 s at 494.7 TFLOP/s.
v1::Tree H100Tree() {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "w_mm");
  testing::AddH100Matmul(&tree, 2, 1);
  testing::AddNode(&tree, 3, 0, "w_torch");
  AddInt(AddKernel(&tree, 4, 3, "torch_add", 140'000, 70'000'000), "bytes", v1::Metric::INCLUSIVE,
         167'500'000'000);
  testing::AddNode(&tree, 5, 0, "w_triton");
  v1::TreeNode* add_one = AddKernel(&tree, 6, 5, "add_one", 35'000, 30'000'000);
  AddInt(add_one, "bytes", v1::Metric::INCLUSIVE, 33'500'000'000);
  AddInt(add_one, "flops32", v1::Metric::INCLUSIVE, 4'947'000'000'000);
  AddKernel(&tree, 7, 0, "reduce", 10, 10'000'000);
  testing::AddH100Sxm(&tree);
  return tree;
}

// One column's cells, by node index.
std::vector<std::string> Cells(const v1::Tree& tree, const std::string& metric) {
  absl::StatusOr<std::vector<MetricColumn>> columns = ParseMetricSpec(metric, tree);
  EXPECT_TRUE(columns.ok()) << columns.status();
  if (!columns.ok()) return {};
  EXPECT_EQ(columns->size(), 1u);
  absl::StatusOr<TreeShape> shape = CheckTreeShape(tree);
  EXPECT_TRUE(shape.ok()) << shape.status();
  std::vector<std::string> cells;
  for (const MetricValue& value : ComputeColumn(tree, *shape, (*columns)[0])) {
    cells.push_back(value.Format());
  }
  return cells;
}

//                                    ROOT, w_mm, nvjet, w_torch, torch_add, w_triton, add_one,
//                                    reduce
TEST(MetricValuesTest, TimeIsTheSummedGpuTime) {
  EXPECT_THAT(Cells(H100Tree(), "time/ms"), ElementsAre("310.000", "200.000", "200.000", "70.000",
                                                        "70.000", "30.000", "30.000", "10.000"));
  EXPECT_THAT(Cells(H100Tree(), "time/s")[0], "0.310");
  EXPECT_THAT(Cells(H100Tree(), "time/ns")[7], "10000000");  // the integer, unconverted
}

// 310 ms over 700 + 140000 + 35000 + 10 launches is 1.764 us.
TEST(MetricValuesTest, AvgTimeIsTimeOverLaunches) {
  EXPECT_THAT(Cells(H100Tree(), "avg_time/us"), ElementsAre("1.764", "285.714", "285.714", "0.500",
                                                            "0.500", "0.857", "0.857", "1000.000"));
}

// 98.94 TFLOP in 0.2 s, in 0.31 s at ROOT; 4.947 TFLOP of TF32 in 0.03 s, in 0.31 s at ROOT.
// Nodes without the metric are blank.
TEST(MetricValuesTest, FlopRatesComeFromTheirWidth) {
  EXPECT_THAT(Cells(H100Tree(), "tflop16/s"),
              ElementsAre("319.161", "494.700", "494.700", "", "", "", "", ""));
  EXPECT_THAT(Cells(H100Tree(), "gflop16/s")[2], "494700.000");
  EXPECT_THAT(Cells(H100Tree(), "flop16/s")[2], "494700000000000.000");
  EXPECT_THAT(Cells(H100Tree(), "TFLOP32/s"),
              ElementsAre("15.958", "", "", "", "", "164.900", "164.900", ""));
}

// 268 GB in 0.31 s at ROOT; 167.5 GB in 0.07 s.
TEST(MetricValuesTest, ByteRates) {
  EXPECT_THAT(Cells(H100Tree(), "gbyte/s"), ElementsAre("864.516", "335.000", "335.000", "2392.857",
                                                        "2392.857", "1116.667", "1116.667", ""));
  EXPECT_THAT(Cells(H100Tree(), "tbyte/s")[4], "2.393");
  EXPECT_THAT(Cells(H100Tree(), "byte/s")[2], "335000000000.000");
}

// nvjet: max(0.1 s of FP16, 0.02 s of bytes) / 0.2 s; torch_add: 0.05 s of bytes / 0.07 s;
// add_one: max(0.01 s of TF32, 0.01 s of bytes) / 0.03 s; reduce has no work metrics. Scopes
// are blank, as in proton-viewer.
TEST(MetricValuesTest, UtilIsTheRooflineLimitOverTheTime) {
  EXPECT_THAT(Cells(H100Tree(), "util"),
              ElementsAre("", "", "0.500", "", "0.714", "", "0.333", "0.000"));
}

TEST(MetricValuesTest, UtilIsBlankOnAnUnknownDevice) {
  v1::Tree tree = H100Tree();
  tree.mutable_devices(0)->set_arch(75);  // no table row, no per-SM rates to compute with
  EXPECT_THAT(Cells(tree, "util"), ElementsAre("", "", "", "", "", "", "", ""));
}

TEST(MetricValuesTest, PercentOfSummedMetricIsOfRoot) {
  EXPECT_THAT(Cells(H100Tree(), "time/%"), ElementsAre("100.000", "64.516", "64.516", "22.581",
                                                       "22.581", "9.677", "9.677", "3.226"));
  EXPECT_THAT(Cells(H100Tree(), "bytes/%")[4], "62.500");  // 167.5 of 268 GB
}

// Not summed into parents, so the share is of the sum over all nodes.
TEST(MetricValuesTest, PercentOfExclusiveMetricIsOfTheSum) {
  v1::Tree tree = H100Tree();
  AddInt(tree.mutable_nodes(1), "cpu_time (ns)", v1::Metric::EXCLUSIVE, 300);
  AddInt(tree.mutable_nodes(3), "cpu_time (ns)", v1::Metric::EXCLUSIVE, 100);
  EXPECT_THAT(Cells(tree, "cpu_time/%"), ElementsAre("", "75.000", "", "25.000", "", "", "", ""));
  EXPECT_THAT(Cells(tree, "count/%")[4], "79.677");  // 140000 of 175710 launches
}

// The scopes' CPU time of a session: ROOT's is its children's, combined.
TEST(MetricValuesTest, PercentOfScopeCpuTimeIsOfRoot) {
  v1::Tree tree = H100Tree();
  tree.mutable_nodes(1)->set_count(1);
  tree.mutable_nodes(1)->set_duration_ns_sum(300);
  tree.mutable_nodes(3)->set_count(1);
  tree.mutable_nodes(3)->set_duration_ns_sum(100);
  EXPECT_THAT(Cells(tree, "cpu_time/%"),
              ElementsAre("100.000", "75.000", "", "25.000", "", "", "", ""));
  EXPECT_EQ(ParseMetricSpec("avg_cpu_time/%", tree).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Without scope timings (a Proton file), cpu_time/<unit> is cpu_timed_scope's metric.
TEST(MetricValuesTest, CpuTimeOfAFileIsTheCpuTimeMetric) {
  v1::Tree tree = H100Tree();
  AddInt(tree.mutable_nodes(1), "cpu_time (ns)", v1::Metric::EXCLUSIVE, 3'000'000);
  EXPECT_THAT(Cells(tree, "cpu_time/ms"), ElementsAre("", "3.000", "", "", "", "", "", ""));
}

TEST(MetricValuesTest, DerivedMetricsNeedTheirSources) {
  v1::Tree tree = H100Tree();
  EXPECT_EQ(ParseMetricSpec("flop/s", tree).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseMetricSpec("tflop8/s", tree).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseMetricSpec("tflop16/%", tree).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseMetricSpec("util/%", tree).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseMetricSpec("avg_time/%", tree).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseMetricSpec("time/min", tree).status().code(), absl::StatusCode::kInvalidArgument);
  v1::Tree cpu_only;
  testing::AddNode(&cpu_only, 0, 0, "ROOT");
  AddInt(testing::AddNode(&cpu_only, 1, 0, "s"), "bytes", v1::Metric::INCLUSIVE, 1);
  EXPECT_EQ(ParseMetricSpec("gbyte/s", cpu_only).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseMetricSpec("util", cpu_only).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MetricValuesTest, AvailableNamesOfferWhatTheMetricsAllow) {
  EXPECT_THAT(AvailableMetricNames(H100Tree()),
              ElementsAre("count", "time/ns|us|ms|s", "avg_time/ns|us|ms|s", "cpu_time/ns|us|ms|s",
                          "avg_cpu_time/ns|us|ms|s", "min_cpu_time/ns|us|ms|s",
                          "max_cpu_time/ns|us|ms|s", "flop16/s|gflop16/s|tflop16/s",
                          "flop32/s|gflop32/s|tflop32/s", "byte/s|gbyte/s|tbyte/s", "util",
                          "time (ns)", "device_id", "flops16", "bytes", "flops32", "<metric>/%"));
}

// The default is the GPU time when there are no scope timings, as in a Hatchet file.
TEST(MetricValuesTest, DefaultOfAGpuTreeIsTime) {
  absl::StatusOr<std::vector<MetricColumn>> columns = ParseMetricSpec("", H100Tree());
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_EQ((*columns)[0].header, "time (ms)");
}

TEST(MetricValuesTest, GoldenTreeWithDerivedMetrics) {
  absl::StatusOr<std::vector<MetricColumn>> columns =
      ParseMetricSpec("time/ms,tflop16/s,gbyte/s,util,time/%", H100Tree());
  ASSERT_TRUE(columns.ok()) << columns.status();
  absl::StatusOr<std::string> text = RenderTree(H100Tree(), *columns);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "time (ms)  tflop16/s   gbyte/s   util   time/%\n"
            "  310.000    319.161   864.516         100.000  ROOT\n"
            "  200.000    494.700   335.000          64.516  ├─ w_mm\n"
            "  200.000    494.700   335.000  0.500   64.516  │  └─ nvjet\n"
            "   70.000             2392.857          22.581  ├─ w_torch\n"
            "   70.000             2392.857  0.714   22.581  │  └─ torch_add\n"
            "   30.000             1116.667           9.677  ├─ w_triton\n"
            "   30.000             1116.667  0.333    9.677  │  └─ add_one\n"
            "   10.000                       0.000    3.226  └─ reduce\n");
}

TEST(MetricValuesTest, MinusCountsBlankAsZero) {
  EXPECT_EQ(MetricValue::Int(5).Minus(MetricValue::Int(7)).Format(), "-2");
  EXPECT_EQ(MetricValue().Minus(MetricValue::Double(1.5)).Format(), "-1.500");
  EXPECT_EQ(MetricValue::Int(3).Minus(MetricValue()).Format(), "3");
  EXPECT_EQ(MetricValue::Int(3).Minus(MetricValue::Double(0.5)).Format(), "2.500");
  EXPECT_TRUE(MetricValue().Minus(MetricValue()).blank());
}

TEST(MetricValuesTest, VectorMetricsSumIntoParentsElementWise) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddIntVector(testing::AddNode(&tree, 1, 0, "a"), "v", {1, 2, 3});
  testing::AddIntVector(testing::AddNode(&tree, 2, 1, "b"), "v", {10, 20, 30});
  testing::AddDoubleVector(testing::AddNode(&tree, 3, 0, "c"), "w", {0.5, 1});
  EXPECT_THAT(Cells(tree, "v"), ElementsAre("[11, 22, 33]", "[11, 22, 33]", "[10, 20, 30]", ""));
  EXPECT_THAT(Cells(tree, "w"), ElementsAre("[0.500, 1.000]", "", "", "[0.500, 1.000]"));
  // Where one number is needed (a percent, a sort, a threshold), a vector is its sum.
  EXPECT_THAT(Cells(tree, "v/%"), ElementsAre("100.000", "100.000", "90.909", ""));
  EXPECT_EQ(MetricValue::Vector({MetricValue::Int(1), MetricValue::Double(2.5)}).AsDouble(), 3.5);
}

TEST(MetricValuesTest, VectorsSubtractElementWiseAndSayWhenTheyDoNotMatch) {
  const MetricValue a = MetricValue::Vector({MetricValue::Int(5), MetricValue::Int(1)});
  const MetricValue b = MetricValue::Vector({MetricValue::Int(2), MetricValue::Double(0.5)});
  EXPECT_EQ(a.Minus(b).Format(), "[3, 0.500]");
  EXPECT_EQ(MetricValue().Minus(b).Format(), "[-2, -0.500]");
  EXPECT_EQ(a.Minus(MetricValue()).Format(), "[5, 1]");
  const MetricValue shorter = MetricValue::Vector({MetricValue::Int(1)});
  EXPECT_EQ(a.Minus(shorter).Format(), "size mismatch");
  EXPECT_EQ(a.Minus(MetricValue::Int(1)).Format(), "size mismatch");
  MetricValue sum = a;
  sum.Add(shorter);
  EXPECT_EQ(sum.Format(), "size mismatch");
  sum.Add(a);  // stays a mismatch
  EXPECT_EQ(sum.Format(), "size mismatch");
}

TEST(MetricValuesTest, HugeFloatsPrintInScientificNotation) {
  EXPECT_EQ(MetricValue::Double(1.7976931348623157e308).Format(), "1.798e+308");
  EXPECT_EQ(MetricValue::Double(-1e15).Format(), "-1.000e+15");
  EXPECT_EQ(MetricValue::Double(123'456'789'012.345).Format(), "123456789012.345");
  EXPECT_EQ(MetricValue::Int(std::numeric_limits<int64_t>::max()).Format(), "9223372036854775807");
}

// Proton's int64 sums wrap: three user metrics of 2^62 would total -4611686018427387904.
TEST(MetricValuesTest, IntegerSumsPastInt64BecomeFloatsNotNegative) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "step");
  for (uint32_t id = 2; id <= 4; ++id) {
    AddInt(testing::AddNode(&tree, id, 1, "part"), "m", v1::Metric::INCLUSIVE, int64_t{1} << 62);
  }
  EXPECT_THAT(Cells(tree, "m"), ElementsAre("1.384e+19", "1.384e+19", "4611686018427387904",
                                            "4611686018427387904", "4611686018427387904"));
}

// A count is a uint64: 2^64-1 launches printed as int64 were -1.
TEST(MetricValuesTest, CountsPastInt64AreNotNegative) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "step", std::numeric_limits<uint64_t>::max());
  testing::AddNode(&tree, 2, 0, "other", 3);
  EXPECT_THAT(Cells(tree, "count"), ElementsAre("1.845e+19", "1.845e+19", "3"));
  EXPECT_EQ(MetricValue::Count(std::numeric_limits<int64_t>::max()).Format(),
            "9223372036854775807");
}

TEST(MetricValuesTest, DifferencesPastInt64BecomeFloats) {
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(MetricValue::Int(0).Minus(MetricValue::Int(kMin)).Format(), "9.223e+18");
  EXPECT_EQ(MetricValue().Minus(MetricValue::Int(kMin)).Format(), "9.223e+18");
  EXPECT_EQ(MetricValue::Int(kMin).Minus(MetricValue::Int(1)).Format(), "-9.223e+18");
  EXPECT_EQ(MetricValue::Int(-1).Minus(MetricValue::Int(kMin)).Format(), "9223372036854775807");
}

}  // namespace
}  // namespace protond::view
