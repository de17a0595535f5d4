#include "daemon/query/tree_query.h"

#include "gtest/gtest.h"

namespace protond::query {
namespace {

TEST(TreeQueryTest, MergesProcessesAndEmitsPreOrder) {
  store::StoredTree stored;
  stored.nodes = {{1, 1, 0, "a"}, {1, 2, 0, "b"}, {1, 3, 1, "a.child"}};
  stored.node_stats = {{1, 1, 10, 2, 30, 10, 20}, {1, 1, 11, 1, 5, 5, 5}, {1, 3, 10, 1, 7, 7, 7}};
  stored.metrics = {
      {1, 1, 10, "flops", store::MetricAggregation::kInclusive, false, 3, 0},
      {1, 1, 11, "flops", store::MetricAggregation::kInclusive, false, 4, 0},
      {1, 2, 10, "batch", store::MetricAggregation::kProperty, false, 8, 0},
  };
  const v1::Tree tree = BuildTree(stored);
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

TEST(TreeQueryTest, Malicious_OrphanRowsAreSkipped) {
  store::StoredTree stored;
  stored.nodes = {{1, 5, 4, "orphan"}};
  stored.node_stats = {{1, 9, 1, 1, 1, 1, 1}};
  EXPECT_EQ(BuildTree(stored).nodes_size(), 1);
}

}  // namespace
}  // namespace protond::query
