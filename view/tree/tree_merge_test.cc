#include "view/tree/tree_merge.h"

#include <vector>

#include "gtest/gtest.h"
#include "view/testing/test_profiles.h"

namespace protond::view {
namespace {

using testing::AddDouble;
using testing::AddInt;
using testing::AddKernel;
using testing::AddNode;

// ROOT / step (count, duration sum/min/max) / matmul (time (ns)), plus a property.
v1::Tree Window(uint64_t steps, uint64_t min_ns, uint64_t max_ns, int64_t matmul_ns,
                int64_t device) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  v1::TreeNode* step = AddNode(&tree, 1, 0, "step", steps);
  step->set_duration_ns_sum(steps * (min_ns + max_ns) / 2);
  step->set_duration_ns_min(min_ns);
  step->set_duration_ns_max(max_ns);
  v1::TreeNode* matmul = AddKernel(&tree, 2, 1, "matmul", steps, matmul_ns);
  matmul->mutable_metrics(1)->set_int_value(device);
  return tree;
}

const v1::Metric* FindMetric(const v1::TreeNode& node, const std::string& name) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() == name) return &metric;
  }
  return nullptr;
}

TEST(TreeMergeTest, SameFramesAddUpTheirCountsTimesAndMetrics) {
  const std::vector<v1::Tree> windows = {Window(10, 100, 300, 5000, 2),
                                         Window(20, 50, 200, 7000, 1)};
  const absl::StatusOr<v1::Tree> merged = MergeTrees(windows);
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_EQ(merged->nodes_size(), 3);
  const v1::TreeNode& step = merged->nodes(1);
  EXPECT_EQ(step.name(), "step");
  EXPECT_EQ(step.count(), 30u);
  EXPECT_EQ(step.duration_ns_sum(), 10u * 200 + 20u * 125);
  EXPECT_EQ(step.duration_ns_min(), 50u);
  EXPECT_EQ(step.duration_ns_max(), 300u);
  const v1::TreeNode& matmul = merged->nodes(2);
  EXPECT_EQ(matmul.parent_id(), 1u);
  EXPECT_EQ(matmul.count(), 30u);
  EXPECT_EQ(FindMetric(matmul, "time (ns)")->int_value(), 12000);
  // A property is the last window's, never a sum.
  EXPECT_EQ(FindMetric(matmul, "device_id")->int_value(), 1);
}

TEST(TreeMergeTest, FramesOfOneTreeOnlyAreKeptUnderTheirParents) {
  v1::Tree first = Window(1, 10, 10, 100, 0);
  v1::Tree second = Window(1, 10, 10, 100, 0);
  AddKernel(&second, 3, 1, "softmax", 2, 40);
  AddNode(&second, 4, 0, "eval", 1);
  const std::vector<v1::Tree> windows = {first, second};
  const absl::StatusOr<v1::Tree> merged = MergeTrees(windows);
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_EQ(merged->nodes_size(), 5);
  EXPECT_EQ(merged->nodes(3).name(), "softmax");
  EXPECT_EQ(merged->nodes(3).parent_id(), 1u);
  EXPECT_EQ(FindMetric(merged->nodes(3), "time (ns)")->int_value(), 40);
  EXPECT_EQ(merged->nodes(4).name(), "eval");
  EXPECT_EQ(merged->nodes(4).parent_id(), 0u);
}

TEST(TreeMergeTest, AnIntegerAndARealNumberAddAsARealNumber) {
  v1::Tree first = Window(1, 10, 10, 100, 0);
  v1::Tree second = Window(1, 10, 10, 100, 0);
  AddInt(first.mutable_nodes(1), "tokens", v1::Metric::INCLUSIVE, 3);
  AddDouble(second.mutable_nodes(1), "tokens", 0.5);
  const std::vector<v1::Tree> windows = {first, second};
  const absl::StatusOr<v1::Tree> merged = MergeTrees(windows);
  ASSERT_TRUE(merged.ok()) << merged.status();
  const v1::Metric* tokens = FindMetric(merged->nodes(1), "tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->value_case(), v1::Metric::kDoubleValue);
  EXPECT_DOUBLE_EQ(tokens->double_value(), 3.5);
}

void AddIntVector(v1::TreeNode* node, const std::string& name, std::vector<int64_t> values) {
  v1::Metric* metric = node->add_metrics();
  metric->set_name(name);
  metric->set_aggregation(v1::Metric::INCLUSIVE);
  for (int64_t value : values) metric->mutable_int_vector()->add_values(value);
}

TEST(TreeMergeTest, VectorsAddElementWiseAndOfAnotherLengthAreRefused) {
  v1::Tree first = Window(1, 10, 10, 100, 0);
  v1::Tree second = Window(1, 10, 10, 100, 0);
  AddIntVector(first.mutable_nodes(1), "v", {1, 2, 3});
  AddIntVector(second.mutable_nodes(1), "v", {10, 20, 30});
  std::vector<v1::Tree> windows = {first, second};
  const absl::StatusOr<v1::Tree> merged = MergeTrees(windows);
  ASSERT_TRUE(merged.ok()) << merged.status();
  const v1::Metric* v = FindMetric(merged->nodes(1), "v");
  ASSERT_NE(v, nullptr);
  ASSERT_EQ(v->int_vector().values_size(), 3);
  EXPECT_EQ(v->int_vector().values(0), 11);
  EXPECT_EQ(v->int_vector().values(2), 33);

  AddIntVector(windows[1].mutable_nodes(2), "v", {1, 2});
  AddIntVector(windows[0].mutable_nodes(2), "v", {1, 2, 3});
  const absl::StatusOr<v1::Tree> refused = MergeTrees(windows);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "tree 2 of 2, frame 'matmul': metric 'v' is a vector of another type or length in "
            "one tree than in another: they cannot be added");
}

TEST(TreeMergeTest, AFrameThatDidNotRunKeepsTheOtherTreesMinimum) {
  v1::Tree idle = Window(0, 0, 0, 0, 0);
  const std::vector<v1::Tree> windows = {idle, Window(2, 70, 90, 10, 0)};
  const absl::StatusOr<v1::Tree> merged = MergeTrees(windows);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->nodes(1).duration_ns_min(), 70u);
  EXPECT_EQ(merged->nodes(1).duration_ns_max(), 90u);
}

TEST(TreeMergeTest, DevicesOnceEachAndUsedIfAnyTreeUsedThem) {
  v1::Tree first = Window(1, 1, 1, 1, 0);
  v1::Tree second = Window(1, 1, 1, 1, 0);
  for (v1::Tree* tree : {&first, &second}) {
    v1::Device* device = tree->add_devices();
    device->set_process_id(7);
    device->set_device_id(0);
    device->set_used(tree == &second);
    tree->add_notes("no nvdisasm");
  }
  const std::vector<v1::Tree> windows = {first, second};
  const absl::StatusOr<v1::Tree> merged = MergeTrees(windows);
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_EQ(merged->devices_size(), 1);
  EXPECT_TRUE(merged->devices(0).used());
  EXPECT_EQ(merged->notes_size(), 1);
}

TEST(TreeMergeTest, NoTreesIsAnEmptyRootAndABadTreeIsNamed) {
  const absl::StatusOr<v1::Tree> empty = MergeTrees({});
  ASSERT_TRUE(empty.ok());
  ASSERT_EQ(empty->nodes_size(), 1);
  EXPECT_EQ(empty->nodes(0).name(), "ROOT");

  v1::Tree bad;
  AddNode(&bad, 0, 0, "ROOT");
  AddNode(&bad, 1, 9, "orphan");
  const std::vector<v1::Tree> windows = {Window(1, 1, 1, 1, 0), bad};
  const absl::StatusOr<v1::Tree> merged = MergeTrees(windows);
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("tree 2 of 2"), std::string::npos) << merged.status();
}

}  // namespace
}  // namespace protond::view
