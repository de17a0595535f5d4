#include "view/export/folded.h"

#include "gtest/gtest.h"
#include "view/testing/test_export_profiles.h"

namespace protond::view {
namespace {

std::string Folded(const v1::Tree& tree, const std::string& metric) {
  absl::StatusOr<FlameGraph> graph = BuildFlameGraph(tree, metric, KernelNames::kShort);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return graph.ok() ? RenderFolded(*graph) : "";
}

TEST(FoldedTest, EachStackCarriesItsOwnGpuTime) {
  EXPECT_EQ(Folded(testing::ExportTree(), ""),
            "ROOT;train;step;matmul 600\n"
            "ROOT;train;step;add_one 100\n"
            "ROOT;train;add_one 50\n"
            "ROOT;[CUDA memcpy Host-to-Device] 30\n");
}

TEST(FoldedTest, ScopesCarryTheCpuTimeTheirChildrenDoNotCover) {
  EXPECT_EQ(Folded(testing::ExportTree(), "cpu_time/ns"),
            "ROOT;train 200\n"
            "ROOT;train;step 800\n");
}

TEST(FoldedTest, SeparatorsInNamesCannotSplitFramesOrLines) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddKernel(&tree, 1, 0, "a;b\nc", 1, 5);
  EXPECT_EQ(Folded(tree, ""), "ROOT;a:b c 5\n");
}

// Before (issue 27): a frame was a level of recursion, and 25,000 levels crashed protonctl.
TEST(FoldedTest, ADeepChainIsOneLineForItsOneOwnValue) {
  constexpr int kLevels = 100000;
  std::string stack = "ROOT";
  for (int i = 1; i < kLevels; ++i) stack += ";s";
  EXPECT_EQ(Folded(testing::DeepChain(kLevels), ""), stack + ";k 5\n");
}

}  // namespace
}  // namespace protond::view
