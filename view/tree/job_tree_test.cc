#include "view/tree/job_tree.h"

#include "gtest/gtest.h"

namespace protond::view {
namespace {

// ROOT -> train -> step, and (when `with_eval`) ROOT -> eval, with these values by node.
RankTree Rank(const std::string& rank, std::vector<MetricValue> values, bool with_eval) {
  RankTree out;
  out.host = "node01:7878";
  out.rank = rank;
  v1::Tree& tree = out.values.tree;
  tree.add_nodes()->set_name("ROOT");
  const std::pair<int, const char*> frames[] = {{0, "train"}, {1, "step"}, {0, "eval"}};
  for (int i = 0; i < (with_eval ? 3 : 2); ++i) {
    v1::TreeNode* node = tree.add_nodes();
    node->set_id(i + 1);
    node->set_parent_id(frames[i].first);
    node->set_name(frames[i].second);
  }
  out.values.shape = *CheckTreeShape(tree);
  values.resize(tree.nodes_size());
  out.values.values = {values};
  return out;
}

TEST(JobTreeTest, EachFrameShowsItsSpreadOverTheRanksAndTheStraggler) {
  using V = MetricValue;
  const std::vector<RankTree> ranks = {
      Rank("0", {V::Int(30), V::Int(30), V::Int(20)}, false),
      Rank("1", {V::Int(90), V::Int(50), V::Int(45), V::Int(40)}, true),
      Rank("2", {V::Int(40), V::Int(40), V::Int(30)}, false),
      Rank("3", {V::Int(40), V::Int(40), V::Int(45)}, false),
  };
  auto spread = SpreadOverRanks(ranks);
  ASSERT_TRUE(spread.ok()) << spread.status();
  ASSERT_EQ(spread->tree.nodes_size(), 4);  // ROOT, train, step, eval
  EXPECT_EQ(spread->tree.nodes(3).name(), "eval");
  const auto& v = spread->values;
  // train: 30, 50, 40, 40
  EXPECT_EQ(v[0][1].i, 160);  // total
  EXPECT_EQ(v[1][1].i, 30);   // min
  EXPECT_EQ(v[2][1].kind, MetricValue::Kind::kInt);
  EXPECT_EQ(v[2][1].i, 40);  // median of 30 40 40 50
  EXPECT_EQ(v[3][1].i, 50);  // max
  EXPECT_EQ(v[4][1].i, 1);   // slowest rank
  EXPECT_EQ(v[5][1].i, 4);   // ranks
  // step: 20, 45, 30, 45: a tie goes to the first rank with the max
  EXPECT_EQ(v[2][2].kind, MetricValue::Kind::kDouble);
  EXPECT_DOUBLE_EQ(v[2][2].d, 37.5);
  EXPECT_EQ(v[4][2].i, 1);
  // eval: rank 1 alone
  EXPECT_EQ(v[0][3].i, 40);
  EXPECT_EQ(v[2][3].i, 40);
  EXPECT_EQ(v[4][3].i, 1);
  EXPECT_EQ(v[5][3].i, 1);
}

TEST(JobTreeTest, ARankWithoutANumberIsNamedByItsPosition) {
  auto spread = SpreadOverRanks({Rank("", {MetricValue::Int(1), MetricValue::Int(1)}, false),
                                 Rank("", {MetricValue::Int(5), MetricValue::Int(5)}, false)});
  ASSERT_TRUE(spread.ok()) << spread.status();
  EXPECT_EQ(spread->values[4][1].i, 1);
  EXPECT_FALSE(SpreadOverRanks({}).ok());
}

TEST(JobTreeTest, SpreadColumnsAreNamedAfterTheMetric) {
  MetricColumn metric;
  metric.header = "cpu_time (ms)";
  const std::vector<MetricColumn> columns = SpreadColumns(metric);
  ASSERT_EQ(columns.size(), 6u);
  EXPECT_EQ(columns[0].header, "cpu_time (ms) total");
  EXPECT_EQ(columns[4].header, "slowest rank");
}

}  // namespace
}  // namespace protond::view
