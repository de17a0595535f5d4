#include "daemon/aggregate/call_tree.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "common/tree/tree_depth.h"
#include "gtest/gtest.h"

namespace protond::aggregate {
namespace {

using store::MetricAggregation;

uint64_t Bits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

TEST(ParseMetricNameTest, StripsProtonSuffixesAndKeepsUnits) {
  EXPECT_EQ(ParseMetricName("flops").name, "flops");
  EXPECT_EQ(ParseMetricName("flops").aggregation, MetricAggregation::kInclusive);
  EXPECT_EQ(ParseMetricName("flops (inc)").name, "flops");
  EXPECT_EQ(ParseMetricName("cpu_time (ns)(exc)").name, "cpu_time (ns)");
  EXPECT_EQ(ParseMetricName("cpu_time (ns)(exc)").aggregation, MetricAggregation::kExclusive);
  EXPECT_EQ(ParseMetricName("batch (pty)").aggregation, MetricAggregation::kProperty);
  EXPECT_EQ(ParseMetricName("cpu_time (ns)").name, "cpu_time (ns)");
}

TEST(ParseStallReasonTest, MapsCuptisNamesOntoProtonsMetrics) {
  const StallReason memory = ParseStallReason("smsp__pcsamp_warps_issue_stalled_long_scoreboard");
  EXPECT_TRUE(memory.counted);
  EXPECT_TRUE(memory.stalled);
  EXPECT_EQ(memory.metric, "stalled_long_scoreboard");
  const StallReason selected = ParseStallReason("smsp__pcsamp_warps_issue_stalled_selected");
  EXPECT_TRUE(selected.counted);
  EXPECT_FALSE(selected.stalled);
  EXPECT_FALSE(
      ParseStallReason("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued").counted);
  EXPECT_FALSE(ParseStallReason("smsp__pcsamp_sample_count").counted);
}

TEST(CallTreeTest, ScopesAggregateCountSumMinMax) {
  CallTree tree(1);
  const uint32_t a = *tree.Child(kRootNodeId, "a");
  EXPECT_EQ(tree.Child(kRootNodeId, "a"), a);
  tree.AddScope(a, 9, 30);
  tree.AddScope(a, 9, 10);
  tree.AddScope(a, 9, 20);
  store::Batch batch;
  tree.TakeChangedRows(batch);
  ASSERT_EQ(batch.nodes.size(), 1u);
  EXPECT_EQ(batch.nodes[0].name, "a");
  ASSERT_EQ(batch.node_stats.size(), 1u);
  EXPECT_EQ(batch.node_stats[0].count, 3u);
  EXPECT_EQ(batch.node_stats[0].duration_ns_sum, 60u);
  EXPECT_EQ(batch.node_stats[0].duration_ns_min, 10u);
  EXPECT_EQ(batch.node_stats[0].duration_ns_max, 30u);
  store::Batch again;
  tree.TakeChangedRows(again);
  EXPECT_TRUE(again.nodes.empty() && again.node_stats.empty());
}

TEST(CallTreeTest, VectorMetricsSumElementWise) {
  CallTree tree(1);
  const uint32_t a = *tree.Child(kRootNodeId, "a");
  ASSERT_TRUE(tree.AddVectorMetric(a, 1, ParseMetricName("v"), false, {1, 2, 3}).ok());
  ASSERT_TRUE(tree.AddVectorMetric(a, 1, ParseMetricName("v"), false, {1, 2, 3}).ok());
  ASSERT_TRUE(tree.AddVectorMetric(a, 1, ParseMetricName("w"), true, {Bits(0.5), Bits(-1.0)}).ok());
  ASSERT_TRUE(tree.AddVectorMetric(a, 1, ParseMetricName("w"), true, {Bits(0.25), Bits(4.0)}).ok());
  ASSERT_TRUE(tree.AddVectorMetric(a, 1, ParseMetricName("p (pty)"), false, {5, 6}).ok());
  ASSERT_TRUE(tree.AddVectorMetric(a, 1, ParseMetricName("p (pty)"), false, {7, 8}).ok());
  // Another process's part of the same node is a row of its own.
  ASSERT_TRUE(tree.AddVectorMetric(a, 2, ParseMetricName("v"), false, {10, 20, 30}).ok());
  store::Batch batch;
  tree.TakeChangedRows(batch);
  ASSERT_EQ(batch.metrics.size(), 4u);
  EXPECT_EQ(batch.metrics[0].name, "v");
  EXPECT_FALSE(batch.metrics[0].is_double);
  EXPECT_EQ(batch.metrics[0].vector_bits, (std::vector<uint64_t>{2, 4, 6}));
  EXPECT_EQ(batch.metrics[1].vector_bits, (std::vector<uint64_t>{Bits(0.75), Bits(3.0)}));
  EXPECT_TRUE(batch.metrics[1].is_double);
  EXPECT_EQ(batch.metrics[2].aggregation, MetricAggregation::kProperty);
  EXPECT_EQ(batch.metrics[2].vector_bits, (std::vector<uint64_t>{7, 8}));
  EXPECT_EQ(batch.metrics[3].process_id, 2u);
  EXPECT_EQ(batch.metrics[3].vector_bits, (std::vector<uint64_t>{10, 20, 30}));
}

TEST(CallTreeTest, VectorMetricsKeepTheirTypeAndSizeInProtonsWords) {
  CallTree tree(1);
  const uint32_t a = *tree.Child(kRootNodeId, "a");
  const uint32_t b = *tree.Child(kRootNodeId, "b");
  ASSERT_TRUE(tree.AddVectorMetric(a, 1, ParseMetricName("v"), false, {1, 2, 3}).ok());
  // The size holds for the whole session: every node, every process.
  EXPECT_EQ(tree.AddVectorMetric(b, 2, ParseMetricName("v"), false, {1, 2}).message(),
            "size mismatch for metric v: current=3, new=2");
  EXPECT_EQ(
      tree.AddVectorMetric(a, 1, ParseMetricName("v"), true, {Bits(1), Bits(2), Bits(3)}).message(),
      "Metric value type mismatch for valueId 0 (v): current=std::vector<int64_t>, "
      "new=std::vector<double>");
  EXPECT_EQ(tree.AddMetric(a, 1, ParseMetricName("v"), false, 1).message(),
            "Metric value type mismatch for valueId 0 (v): current=std::vector<int64_t>, "
            "new=int64_t");
  ASSERT_TRUE(tree.AddMetric(a, 1, ParseMetricName("s"), false, 1).ok());
  EXPECT_EQ(tree.AddVectorMetric(a, 1, ParseMetricName("s"), false, {1}).message(),
            "Metric value type mismatch for valueId 1 (s): current=int64_t, "
            "new=std::vector<int64_t>");
  store::Batch batch;
  tree.TakeChangedRows(batch);
  ASSERT_EQ(batch.metrics.size(), 2u);  // the refused values changed nothing
  EXPECT_EQ(batch.metrics[0].vector_bits, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(batch.metrics[1].int_value, 1);
}

TEST(CallTreeTest, Int64VectorElementsSaturate) {
  CallTree tree(1);
  const uint32_t a = *tree.Child(kRootNodeId, "a");
  const auto max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  ASSERT_TRUE(tree.AddVectorMetric(a, 1, ParseMetricName("v"), false, {max, 1}).ok());
  EXPECT_EQ(tree.AddVectorMetric(a, 1, ParseMetricName("v"), false, {1, 1}).code(),
            absl::StatusCode::kOutOfRange);
  store::Batch batch;
  tree.TakeChangedRows(batch);
  ASSERT_EQ(batch.metrics.size(), 1u);
  EXPECT_EQ(batch.metrics[0].vector_bits, (std::vector<uint64_t>{max, 2}));
}

TEST(CallTreeTest, LoadedVectorMetricsGoOnSumming) {
  store::StoredTree stored;
  stored.nodes = {{1, 1, 0, "a"}};
  store::MetricRow row{1, 1, 7, "v", MetricAggregation::kInclusive, false, 0, 0, {}};
  row.vector_bits = {1, 2};
  stored.metrics = {row};
  CallTree tree(1);
  tree.Load(stored);
  ASSERT_TRUE(tree.AddVectorMetric(1, 7, ParseMetricName("v"), false, {10, 20}).ok());
  EXPECT_EQ(tree.AddVectorMetric(1, 7, ParseMetricName("v"), false, {1}).message(),
            "size mismatch for metric v: current=2, new=1");
  store::Batch batch;
  tree.TakeChangedRows(batch);
  ASSERT_EQ(batch.metrics.size(), 1u);
  EXPECT_EQ(batch.metrics[0].vector_bits, (std::vector<uint64_t>{11, 22}));
}

TEST(CallTreeTest, MetricsFollowProtonSemantics) {
  CallTree tree(1);
  const uint32_t a = *tree.Child(kRootNodeId, "a");
  ASSERT_TRUE(tree.AddMetric(a, 1, ParseMetricName("flops"), false, 5).ok());
  ASSERT_TRUE(tree.AddMetric(a, 1, ParseMetricName("flops"), false, 7).ok());
  ASSERT_TRUE(tree.AddMetric(a, 1, ParseMetricName("batch (pty)"), false, 3).ok());
  ASSERT_TRUE(tree.AddMetric(a, 1, ParseMetricName("batch (pty)"), false, 4).ok());
  ASSERT_TRUE(tree.AddMetric(a, 1, ParseMetricName("t (exc)"), true, Bits(1.5)).ok());
  ASSERT_TRUE(tree.AddMetric(a, 1, ParseMetricName("t (exc)"), true, Bits(2.0)).ok());
  const absl::Status mismatch = tree.AddMetric(a, 1, ParseMetricName("flops"), true, Bits(1.0));
  EXPECT_EQ(mismatch.message(),
            "Metric value type mismatch for valueId 0 (flops): current=int64_t, new=double");
  store::Batch batch;
  tree.TakeChangedRows(batch);
  ASSERT_EQ(batch.metrics.size(), 3u);
  EXPECT_EQ(batch.metrics[0].int_value, 12);
  EXPECT_EQ(batch.metrics[1].int_value, 4);
  EXPECT_EQ(batch.metrics[1].aggregation, MetricAggregation::kProperty);
  EXPECT_DOUBLE_EQ(batch.metrics[2].double_value, 3.5);
  EXPECT_EQ(batch.metrics[2].name, "t");
}

// 3 x 2^62 wrapped around to -2^62 before; a sum stops at the limit and says so.
TEST(CallTreeTest, AnInt64SumStaysAtTheLimitAndSaysSo) {
  CallTree tree(1);
  const uint32_t step = *tree.Child(kRootNodeId, "step");
  const uint64_t kQuarter = uint64_t{1} << 62;
  const MetricName m = ParseMetricName("m");
  ASSERT_TRUE(tree.AddMetric(step, 4, m, false, kQuarter).ok());
  ASSERT_TRUE(tree.AddMetric(step, 4, m, false, kQuarter - 1).ok());  // INT64_MAX - 2^62
  const absl::Status passed = tree.AddMetric(step, 4, m, false, kQuarter);
  EXPECT_EQ(passed.code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(passed.message(),
            "int64_t metric 'm' of process 4 at node 'step' passed the int64 limit; its sum stays "
            "at 9223372036854775807");
  const MetricName low = ParseMetricName("low");
  ASSERT_TRUE(tree.AddMetric(step, 4, low, false, static_cast<uint64_t>(INT64_MIN + 1)).ok());
  EXPECT_EQ(tree.AddMetric(step, 4, low, false, static_cast<uint64_t>(int64_t{-2})).message(),
            "int64_t metric 'low' of process 4 at node 'step' passed the int64 limit; its sum "
            "stays at -9223372036854775808");
  store::Batch batch;
  tree.TakeChangedRows(batch);
  ASSERT_EQ(batch.metrics.size(), 2u);
  EXPECT_EQ(batch.metrics[0].int_value, INT64_MAX);
  EXPECT_EQ(batch.metrics[1].int_value, INT64_MIN);
}

TEST(CallTreeTest, KernelScopesSumProtonsCycleMetrics) {
  CallTree tree(1);
  const uint32_t scope = *tree.Child(*tree.Child(kRootNodeId, "kernel"), "loop");
  ASSERT_TRUE(tree.AddKernelScope(scope, 1, 8, 4000, 125.0, 0).ok());
  ASSERT_TRUE(tree.AddKernelScope(scope, 1, 8, 2000, 62.5, 0).ok());
  store::Batch batch;
  tree.TakeChangedRows(batch);
  ASSERT_EQ(batch.node_stats.size(), 1u);
  EXPECT_EQ(batch.node_stats[0].count, 16u);
  ASSERT_EQ(batch.metrics.size(), 3u);
  EXPECT_EQ(batch.metrics[0].name, "cycles");
  EXPECT_EQ(batch.metrics[0].int_value, 6000);
  EXPECT_EQ(batch.metrics[1].name, "normalized_cycles");
  EXPECT_DOUBLE_EQ(batch.metrics[1].double_value, 187.5);
  EXPECT_EQ(batch.metrics[2].aggregation, MetricAggregation::kProperty);
}

TEST(CallTreeTest, LoadResumesFromStoredRows) {
  CallTree first(1);
  const uint32_t b = *first.Child(*first.Child(kRootNodeId, "a"), "b");
  first.AddScope(b, 2, 100);
  ASSERT_TRUE(first.AddMetric(b, 2, ParseMetricName("bytes"), false, 8).ok());
  store::Batch saved;
  first.TakeChangedRows(saved);

  CallTree second(1);
  second.Load({saved.nodes, saved.node_stats, saved.metrics, {}});
  EXPECT_EQ(second.Child(*second.Child(kRootNodeId, "a"), "b"), b);
  second.AddScope(b, 2, 50);
  ASSERT_TRUE(second.AddMetric(b, 2, ParseMetricName("bytes"), false, 2).ok());
  store::Batch batch;
  second.TakeChangedRows(batch);
  EXPECT_TRUE(batch.nodes.empty());
  ASSERT_EQ(batch.node_stats.size(), 1u);
  EXPECT_EQ(batch.node_stats[0].count, 2u);
  EXPECT_EQ(batch.node_stats[0].duration_ns_min, 50u);
  ASSERT_EQ(batch.metrics.size(), 1u);
  EXPECT_EQ(batch.metrics[0].int_value, 10);
}

TEST(CallTreeTest, InstructionsOfDifferentCubinsStayApartAcrossALoad) {
  CallTree first(1);
  const uint32_t line = *first.Child(kRootNodeId, "k.py:3@kernel");
  const uint32_t of_a = *first.Child(line, "0x0140", store::NodeKind::kInstruction, 0xa);
  const uint32_t of_b = *first.Child(line, "0x0140", store::NodeKind::kInstruction, 0xb);
  EXPECT_NE(of_a, of_b);
  EXPECT_EQ(first.Child(line, "0x0140", store::NodeKind::kInstruction, 0xa), of_a);
  store::Batch saved;
  first.TakeChangedRows(saved);
  ASSERT_EQ(saved.nodes.size(), 3u);
  EXPECT_EQ(saved.nodes[1].cubin_crc, 0xau);
  EXPECT_EQ(saved.nodes[2].cubin_crc, 0xbu);

  CallTree second(1);
  second.Load({saved.nodes, {}, {}, {}});
  EXPECT_EQ(second.Child(line, "0x0140", store::NodeKind::kInstruction, 0xb), of_b);
}

// The limit every tree shares (common/tree/tree_depth.h): a node is made at most kMaxTreeDepth
// levels below ROOT, whatever the decoder asks for.
TEST(CallTreeTest, NoNodeIsMadeDeeperThanTheLimit) {
  CallTree tree(1);
  uint32_t node = kRootNodeId;
  for (int depth = 1; depth <= kMaxTreeDepth; ++depth) {
    std::optional<uint32_t> child = tree.Child(node, "s");
    ASSERT_TRUE(child.has_value()) << "at depth " << depth;
    node = *child;
  }
  EXPECT_EQ(tree.Child(node, "s"), std::nullopt);
  EXPECT_EQ(tree.Child(node, "kernel", store::NodeKind::kFrame), std::nullopt);
  EXPECT_EQ(tree.node_count(), kMaxTreeDepth + 1u);
}

// A store written before the limit may hold deeper nodes: they load with their ids, and nothing
// is made under them.
TEST(CallTreeTest, AStoredTreeDeeperThanTheLimitLoadsAsItIs) {
  store::StoredTree stored;
  for (uint32_t id = 1; id <= kMaxTreeDepth + 2; ++id) stored.nodes.push_back({1, id, id - 1, "s"});
  CallTree tree(1);
  tree.Load(stored);
  EXPECT_EQ(tree.node_count(), kMaxTreeDepth + 3u);
  EXPECT_EQ(tree.Child(kMaxTreeDepth + 1, "s"), kMaxTreeDepth + 2u);  // stored, so found
  EXPECT_EQ(tree.Child(kMaxTreeDepth + 2, "t"), std::nullopt);
  EXPECT_EQ(tree.Child(kMaxTreeDepth - 1, "t"), kMaxTreeDepth + 3u);
}

// Two windows' stored trees added into a period's: the same path under different node ids is
// one frame, its values combined; a path of one window only is kept.
TEST(CallTreeAddTest, WindowsTreesAddUpFrameByFrame) {
  store::StoredTree first;
  first.nodes = {{1, 1, 0, "step"}, {1, 2, 1, "matmul"}};
  first.node_stats = {{1, 1, 7, 2, 300, 100, 200}, {1, 2, 7, 4, 40, 10, 10}};
  first.metrics = {{1, 2, 7, "time (ns)", MetricAggregation::kInclusive, false, 40, 0, {}},
                   {1, 2, 7, "device_id", MetricAggregation::kProperty, false, 0, 0, {}},
                   {1, 1, 7, "loss", MetricAggregation::kInclusive, true, 0, 1.5, {}}};
  store::StoredTree second;  // matmul first this time, then step, then adam
  second.nodes = {{2, 1, 0, "step"}, {2, 2, 1, "adam"}, {2, 3, 1, "matmul"}};
  second.node_stats = {{2, 1, 7, 1, 50, 50, 50}, {2, 2, 7, 1, 5, 5, 5}, {2, 3, 7, 2, 30, 5, 25}};
  second.metrics = {{2, 3, 7, "time (ns)", MetricAggregation::kInclusive, false, 30, 0, {}},
                    {2, 3, 7, "device_id", MetricAggregation::kProperty, false, 1, 0, {}},
                    {2, 1, 7, "loss", MetricAggregation::kInclusive, false, 2, 0, {}}};

  CallTree period(9);
  ASSERT_TRUE(period.Add(first).ok());
  // loss was a real number in the first window and is an integer here: left out, said.
  EXPECT_EQ(period.Add(second).message(),
            "Metric value type mismatch for valueId 2 (loss): current=double, new=int64_t");
  store::Batch batch;
  period.TakeChangedRows(batch);

  ASSERT_EQ(batch.nodes.size(), 3u);
  EXPECT_EQ(batch.nodes[0].name, "step");
  EXPECT_EQ(batch.nodes[1].name, "matmul");
  EXPECT_EQ(batch.nodes[2].name, "adam");
  EXPECT_EQ(batch.nodes[2].parent_id, 1u);
  ASSERT_EQ(batch.node_stats.size(), 3u);
  const store::NodeStatsRow step{9, 1, 7, 3, 350, 50, 200};
  const store::NodeStatsRow matmul{9, 2, 7, 6, 70, 5, 25};
  const store::NodeStatsRow adam{9, 3, 7, 1, 5, 5, 5};
  for (const store::NodeStatsRow& row : batch.node_stats) {
    const store::NodeStatsRow& want = row.node_id == 1 ? step : row.node_id == 2 ? matmul : adam;
    EXPECT_EQ(row.session_id, 9u);
    EXPECT_EQ(row.count, want.count) << row.node_id;
    EXPECT_EQ(row.duration_ns_sum, want.duration_ns_sum) << row.node_id;
    EXPECT_EQ(row.duration_ns_min, want.duration_ns_min) << row.node_id;
    EXPECT_EQ(row.duration_ns_max, want.duration_ns_max) << row.node_id;
  }
  ASSERT_EQ(batch.metrics.size(), 3u);
  for (const store::MetricRow& row : batch.metrics) {
    if (row.name == "time (ns)") {
      EXPECT_EQ(row.int_value, 70);
    } else if (row.name == "device_id") {
      EXPECT_EQ(row.int_value, 1);  // the later window's
    } else {
      EXPECT_EQ(row.double_value, 1.5);  // loss: the first window's only
    }
    EXPECT_EQ(row.node_id, row.name == "loss" ? 1u : 2u);
  }
}

}  // namespace
}  // namespace protond::aggregate
