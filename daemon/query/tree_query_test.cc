#include "daemon/query/tree_query.h"

#include "common/testing/small_stack.h"
#include "common/tree/tree_depth.h"
#include "gtest/gtest.h"

namespace protond::query {
namespace {

TEST(TreeQueryTest, MergesProcessesAndEmitsPreOrder) {
  store::StoredTree stored;
  stored.nodes = {{1, 1, 0, "a"}, {1, 2, 0, "b"}, {1, 3, 1, "a.child"}};
  stored.node_stats = {{1, 1, 10, 2, 30, 10, 20}, {1, 1, 11, 1, 5, 5, 5}, {1, 3, 10, 1, 7, 7, 7}};
  stored.metrics = {
      {1, 1, 10, "flops", store::MetricAggregation::kInclusive, false, 3, 0, {}},
      {1, 1, 11, "flops", store::MetricAggregation::kInclusive, false, 4, 0, {}},
      {1, 2, 10, "batch", store::MetricAggregation::kProperty, false, 8, 0, {}},
  };
  const v1::Tree tree = BuildTree(stored, false);
  ASSERT_EQ(tree.nodes_size(), 4);
  EXPECT_EQ(tree.nodes(0).name(), "ROOT");
  EXPECT_EQ(tree.nodes(1).name(), "a");
  EXPECT_EQ(tree.nodes(2).name(), "a.child");
  EXPECT_EQ(tree.nodes(3).name(), "b");
  EXPECT_EQ(tree.nodes(1).count(), 3u);
  EXPECT_EQ(tree.nodes(1).duration_ns_sum(), 35u);
  EXPECT_EQ(tree.nodes(1).duration_ns_min(), 5u);
  EXPECT_EQ(tree.nodes(1).duration_ns_max(), 20u);
  ASSERT_EQ(tree.nodes(1).metrics_size(), 1);
  EXPECT_EQ(tree.nodes(1).metrics(0).int_value(), 7);
  EXPECT_EQ(tree.nodes(3).metrics(0).aggregation(), v1::Metric::PROPERTY);
}

// Before (issue 27): a node was a level of recursion, on the thread that answered the query.
TEST(TreeQueryTest, ATreeAsDeepAsTheLimitIsBuiltWithoutRecursion) {
  store::StoredTree stored;
  for (uint32_t id = 1; id <= kMaxTreeDepth; ++id) stored.nodes.push_back({1, id, id - 1, "s"});
  stored.nodes.push_back({1, kMaxTreeDepth + 1, 1, "t"});  // beside the chain, after it
  v1::Tree tree;
  ASSERT_TRUE(testing::RunOnSmallStack([&] { tree = BuildTree(stored, false); }));
  ASSERT_EQ(tree.nodes_size(), kMaxTreeDepth + 2);
  EXPECT_EQ(tree.nodes(kMaxTreeDepth).id(), static_cast<uint32_t>(kMaxTreeDepth));
  EXPECT_EQ(tree.nodes(kMaxTreeDepth).parent_id(), kMaxTreeDepth - 1u);
  EXPECT_EQ(tree.nodes(kMaxTreeDepth + 1).name(), "t");
  EXPECT_EQ(tree.nodes(kMaxTreeDepth + 1).parent_id(), 1u);
}

TEST(TreeQueryTest, KeepingProcessesGivesTheirPartOnly) {
  store::StoredTree stored;
  stored.nodes = {{1, 1, 0, "step"}};
  stored.node_stats = {{1, 1, 10, 2, 30, 10, 20}, {1, 1, 11, 1, 5, 5, 5}};
  stored.metrics = {{1, 1, 10, "flops", store::MetricAggregation::kInclusive, false, 3, 0, {}},
                    {1, 1, 11, "flops", store::MetricAggregation::kInclusive, false, 4, 0, {}}};
  stored.devices = {{4242, {10, 0, "H100", 90, 132, 0, 0, 0, 0}},
                    {4243, {11, 0, "H100", 90, 132, 0, 0, 0, 0}}};
  KeepProcesses({11}, stored);
  const v1::Tree tree = BuildTree(stored, false);
  ASSERT_EQ(tree.nodes_size(), 2);
  EXPECT_EQ(tree.nodes(1).count(), 1u);
  EXPECT_EQ(tree.nodes(1).duration_ns_sum(), 5u);
  EXPECT_EQ(tree.nodes(1).metrics(0).int_value(), 4);
  ASSERT_EQ(tree.devices_size(), 1);
  EXPECT_EQ(tree.devices(0).pid(), 4243u);
}

TEST(TreeQueryTest, DevicesComeWithTheTreeInStoredOrder) {
  store::StoredTree stored;
  stored.devices = {
      {4242, {10, 0, "NVIDIA H100 80GB HBM3", 90, 132, 1980000, 2619000, 5120, 85029158912}},
      {4243, {11, 1, "NVIDIA A100-SXM4-80GB", 80, 108, 1410000, 1593000, 5120, 85097971712}}};
  const v1::Tree tree = BuildTree(stored, false);
  EXPECT_EQ(tree.nodes_size(), 1);  // ROOT
  ASSERT_EQ(tree.devices_size(), 2);
  const v1::Device& h100 = tree.devices(0);
  EXPECT_EQ(h100.process_id(), 10u);
  EXPECT_EQ(h100.pid(), 4242u);
  EXPECT_EQ(h100.device_id(), 0u);
  EXPECT_EQ(h100.name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h100.arch(), 90u);
  EXPECT_EQ(h100.num_sms(), 132u);
  EXPECT_EQ(h100.clock_rate_khz(), 1980000u);
  EXPECT_EQ(h100.memory_clock_rate_khz(), 2619000u);
  EXPECT_EQ(h100.bus_width_bits(), 5120u);
  EXPECT_EQ(h100.memory_bytes(), 85029158912u);
  EXPECT_EQ(tree.devices(1).pid(), 4243u);
  EXPECT_EQ(tree.devices(1).device_id(), 1u);
  EXPECT_EQ(tree.devices(1).name(), "NVIDIA A100-SXM4-80GB");
}

// Issue 26: each rank of a 2-GPU DDP job listed both GPUs, though it used one. A device is used
// by a process when that process's GPU work carries its id.
TEST(TreeQueryTest, ADeviceIsUsedByTheProcessesThatRanWorkOnIt) {
  store::StoredTree stored;
  stored.nodes = {{1, 1, 0, "kernel"}};
  stored.metrics = {{1, 1, 10, "device_id", store::MetricAggregation::kProperty, false, 0, 0, {}},
                    {1, 1, 11, "device_id", store::MetricAggregation::kProperty, false, 1, 0, {}},
                    {1, 1, 11, "time (ns)", store::MetricAggregation::kInclusive, false, 0, 0, {}}};
  stored.devices = {{4242, {10, 0, "H200", 90, 132, 0, 0, 0, 0}},
                    {4242, {10, 1, "H200", 90, 132, 0, 0, 0, 0}},
                    {4243, {11, 0, "H200", 90, 132, 0, 0, 0, 0}},
                    {4243, {11, 1, "H200", 90, 132, 0, 0, 0, 0}}};
  const v1::Tree tree = BuildTree(stored, false);
  ASSERT_EQ(tree.devices_size(), 4);
  EXPECT_TRUE(tree.devices(0).used());   // rank 0 on device 0
  EXPECT_FALSE(tree.devices(1).used());  // it only saw device 1
  EXPECT_FALSE(tree.devices(2).used());
  EXPECT_TRUE(tree.devices(3).used());  // rank 1 on device 1
}

TEST(TreeQueryTest, Malicious_OrphanRowsAreSkipped) {
  store::StoredTree stored;
  stored.nodes = {{1, 5, 4, "orphan"}};
  stored.node_stats = {{1, 9, 1, 1, 1, 1, 1}};
  EXPECT_EQ(BuildTree(stored, false).nodes_size(), 1);
}

// A kernel with one source line and two sampled instructions under it, from two processes.
store::StoredTree SampledLine() {
  store::StoredTree stored;
  stored.nodes = {{1, 1, 0, "chase"},
                  {1, 2, 1, "/src/k.cu:6@chase"},
                  {1, 3, 2, "0x0140", store::NodeKind::kInstruction},
                  {1, 4, 2, "0x0150", store::NodeKind::kInstruction}};
  stored.metrics = {
      {1, 3, 10, "num_samples", store::MetricAggregation::kInclusive, false, 90, 0, {}},
      {1, 3, 11, "num_samples", store::MetricAggregation::kInclusive, false, 5, 0, {}},
      {1, 4, 10, "num_samples", store::MetricAggregation::kInclusive, false, 10, 0, {}},
      {1, 4, 10, "stalled_wait", store::MetricAggregation::kInclusive, false, 10, 0, {}},
  };
  return stored;
}

TEST(TreeQueryTest, InstructionsFoldIntoTheirLineUnlessAskedFor) {
  const v1::Tree folded = BuildTree(SampledLine(), false);
  ASSERT_EQ(folded.nodes_size(), 3);  // ROOT, chase, the line
  const v1::TreeNode& line = folded.nodes(2);
  EXPECT_EQ(line.name(), "/src/k.cu:6@chase");
  ASSERT_EQ(line.metrics_size(), 2);
  EXPECT_EQ(line.metrics(0).name(), "num_samples");
  EXPECT_EQ(line.metrics(0).int_value(), 105);
  EXPECT_EQ(line.metrics(1).name(), "stalled_wait");
  EXPECT_EQ(line.metrics(1).int_value(), 10);

  const v1::Tree shown = BuildTree(SampledLine(), true);
  ASSERT_EQ(shown.nodes_size(), 5);
  EXPECT_EQ(shown.nodes(2).metrics_size(), 0);  // summed up only when viewed
  EXPECT_EQ(shown.nodes(3).name(), "0x0140");
  EXPECT_EQ(shown.nodes(3).parent_id(), 2u);
  EXPECT_EQ(shown.nodes(3).metrics(0).int_value(), 95);
  EXPECT_EQ(shown.nodes(4).name(), "0x0150");
}

TEST(TreeQueryTest, ALinesInstructionsAreInAddressOrder) {
  store::StoredTree stored;
  stored.nodes = {{1, 1, 0, "chase"},
                  {1, 2, 1, "/src/k.cu:6@chase"},
                  {1, 3, 2, "0x0ca0  LDG.E R9, desc[UR8][R8.64]", store::NodeKind::kInstruction},
                  {1, 4, 2, "0x0c70  LEA R8, P0, R6, UR10, 0x2", store::NodeKind::kInstruction},
                  {1, 5, 2, "0x0050", store::NodeKind::kInstruction},
                  {1, 6, 1, "/src/k.cu:7@chase"}};
  const v1::Tree shown = BuildTree(stored, true);
  ASSERT_EQ(shown.nodes_size(), 7);
  EXPECT_EQ(shown.nodes(3).name(), "0x0050");
  EXPECT_EQ(shown.nodes(4).name(), "0x0c70  LEA R8, P0, R6, UR10, 0x2");
  EXPECT_EQ(shown.nodes(5).name(), "0x0ca0  LDG.E R9, desc[UR8][R8.64]");
  EXPECT_EQ(shown.nodes(6).name(), "/src/k.cu:7@chase");  // frames keep their order
}

}  // namespace
}  // namespace protond::query
