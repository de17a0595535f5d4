#include "daemon/query/kept_trees.h"

#include "gtest/gtest.h"

namespace protond::query {
namespace {

using Clock = KeptTrees::Clock;
using std::chrono::seconds;

std::shared_ptr<const v1::Tree> TreeOfNodes(int nodes) {
  auto tree = std::make_shared<v1::Tree>();
  for (int i = 0; i < nodes; ++i) tree->add_nodes()->set_id(i + 1);
  return tree;
}

class KeptTreesTest : public ::testing::Test {
 protected:
  // Builds a tree for `question` as a query does: Find, then Keep with its ticket.
  std::shared_ptr<const v1::Tree> Build(const KeptTrees::Question& question, int nodes) {
    const KeptTrees::Found found = kept_.Find(question, now_);
    auto tree = TreeOfNodes(nodes);
    kept_.Keep(question, found.ticket, tree, now_);
    return tree;
  }

  Clock::time_point now_ = Clock::now();
  KeptTrees kept_{/*max_trees=*/2, /*keep_for=*/seconds(60)};
};

TEST_F(KeptTreesTest, AKeptTreeAnswersOnlyTheSameQuestion) {
  const auto tree = Build({1, "", false}, 3);
  EXPECT_EQ(kept_.Find({1, "", false}, now_).tree, tree);
  EXPECT_EQ(kept_.Find({1, "0", false}, now_).tree, nullptr);
  EXPECT_EQ(kept_.Find({1, "", true}, now_).tree, nullptr);
  EXPECT_EQ(kept_.Find({2, "", false}, now_).tree, nullptr);
}

TEST_F(KeptTreesTest, ACommitForgetsTheTreesOfTheSessionsItChanged) {
  const auto first = Build({1, "", false}, 3);
  const auto second = Build({2, "", false}, 4);
  kept_.Committed({2}, /*every_session=*/false, now_);
  EXPECT_EQ(kept_.Find({1, "", false}, now_).tree, first);
  EXPECT_EQ(kept_.Find({2, "", false}, now_).tree, nullptr);
  kept_.Committed({}, /*every_session=*/true, now_);
  EXPECT_EQ(kept_.Find({1, "", false}, now_).tree, nullptr);
}

TEST_F(KeptTreesTest, ATreeBuiltWhileItsSessionChangedIsNotKept) {
  const KeptTrees::Found found = kept_.Find({1, "", false}, now_);
  kept_.Committed({1}, false, now_);  // while the tree was read from the store
  kept_.Keep({1, "", false}, found.ticket, TreeOfNodes(3), now_);
  EXPECT_EQ(kept_.Find({1, "", false}, now_).tree, nullptr);

  const KeptTrees::Found other = kept_.Find({2, "", false}, now_);
  kept_.Committed({1}, false, now_);  // another session's change does not matter
  const auto tree = TreeOfNodes(3);
  kept_.Keep({2, "", false}, other.ticket, tree, now_);
  EXPECT_EQ(kept_.Find({2, "", false}, now_).tree, tree);

  const KeptTrees::Found before_reset = kept_.Find({3, "", false}, now_);
  kept_.ForgetAll();
  kept_.Keep({3, "", false}, before_reset.ticket, TreeOfNodes(1), now_);
  EXPECT_EQ(kept_.Find({3, "", false}, now_).tree, nullptr);
}

TEST_F(KeptTreesTest, TheLeastRecentlyAskedGoesFirstAndAnUnaskedOneExpires) {
  const auto first = Build({1, "", false}, 1);
  now_ += seconds(1);
  const auto second = Build({2, "", false}, 2);
  now_ += seconds(1);
  EXPECT_EQ(kept_.Find({1, "", false}, now_).tree, first);  // now 2 is the least recent
  now_ += seconds(1);
  Build({3, "", false}, 3);
  EXPECT_EQ(kept_.Find({2, "", false}, now_).tree, nullptr);
  EXPECT_EQ(kept_.Find({1, "", false}, now_).tree, first);
  now_ += seconds(61);
  kept_.Committed({}, false, now_);
  EXPECT_EQ(kept_.Find({1, "", false}, now_).tree, nullptr);
}

TEST_F(KeptTreesTest, AViewIsKeptWithItsTreeForItsOptionsOnly) {
  const auto tree = Build({1, "", false}, 3);
  EXPECT_EQ(kept_.View(tree, "opts"), std::nullopt);
  kept_.KeepView(tree, "opts", "ROOT\n");
  EXPECT_EQ(kept_.View(tree, "opts"), "ROOT\n");
  EXPECT_EQ(kept_.View(tree, "other"), std::nullopt);
  kept_.KeepView(TreeOfNodes(1), "opts", "not kept");  // a tree that is not kept
  kept_.Committed({1}, false, now_);
  EXPECT_EQ(kept_.View(tree, "opts"), std::nullopt);
}

}  // namespace
}  // namespace protond::query
