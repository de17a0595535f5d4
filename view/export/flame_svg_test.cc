#include "view/export/flame_svg.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/testing/test_export_profiles.h"
#include "view/testing/test_files.h"

namespace protond::view {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Svg(const v1::Tree& tree) {
  absl::StatusOr<FlameGraph> graph = BuildFlameGraph(tree, "", KernelNames::kShort);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return graph.ok() ? RenderFlameSvg(*graph) : "";
}

TEST(FlameSvgTest, MatchesTheGoldenFile) {
  testing::ExpectGolden(Svg(testing::ExportTree()), "export_tree.svg");
}

TEST(FlameSvgTest, IsSelfContained) {
  const std::string svg = Svg(testing::ExportTree());
  EXPECT_THAT(svg, Not(HasSubstr("href")));
  EXPECT_THAT(svg, Not(HasSubstr("src=")));
  EXPECT_THAT(svg, Not(HasSubstr("@import")));
  EXPECT_THAT(svg, Not(HasSubstr("url(")));
  EXPECT_THAT(svg, HasSubstr("<script><![CDATA["));
}

TEST(FlameSvgTest, FramesSpanTheirShareOfRootAndSitAboveTheirParent) {
  const std::string svg = Svg(testing::ExportTree());
  // matmul: 600 of 780 ns, from the left edge, three frames above ROOT (ROOT is at depth 0, the
  // bottom row, y = 36 + 3 * 16).
  EXPECT_THAT(svg, HasSubstr("<g class=\"frame\" data-x=\"0\" data-w=\"0.7692307692\" "
                             "data-d=\"3\" data-name=\"matmul\"><title>matmul: 600 time (ns) "
                             "(76.92%)</title><rect x=\"10.00\" y=\"36.00\""));
  // The copy follows train (750 of 780) on the row above ROOT.
  EXPECT_THAT(svg, HasSubstr("data-x=\"0.9615384615\" data-w=\"0.03846153846\" data-d=\"1\" "
                             "data-name=\"[CUDA memcpy Host-to-Device]\""));
}

TEST(FlameSvgTest, NamesAreEscapedAndLabelsCutToTheirFrame) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddKernel(&tree, 1, 0, "wide<&>\"kernel\"", 999, 9990);
  testing::AddKernel(&tree, 2, 0, "a_rather_long_kernel_name_that_cannot_fit", 1, 10);
  const std::string svg = Svg(tree);
  EXPECT_THAT(svg, HasSubstr("data-name=\"wide&lt;&amp;&gt;&quot;kernel&quot;\""));
  EXPECT_THAT(svg, HasSubstr(">wide&lt;&amp;&gt;&quot;kernel&quot;</text>"));
  // 10 of 10000 ns is 1.18 px: too narrow for any label.
  EXPECT_THAT(svg, HasSubstr("data-name=\"a_rather_long_kernel_name_that_cannot_fit\""));
  EXPECT_THAT(svg, HasSubstr("<text x=\"1191.82\" y=\"47.50\"></text>"));
}

TEST(FlameSvgTest, FramesNarrowerThanATenthOfAPixelAreLeftOut) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddKernel(&tree, 1, 0, "big", 1, 1'000'000);
  testing::AddKernel(&tree, 2, 0, "tiny", 1, 1);
  const std::string svg = Svg(tree);
  EXPECT_THAT(svg, HasSubstr("data-name=\"big\""));
  EXPECT_THAT(svg, Not(HasSubstr("data-name=\"tiny\"")));
}

// Before (issue 27): a frame was a level of recursion, and 25,000 levels crashed protonctl.
TEST(FlameSvgTest, ADeepChainHasAFramePerLevel) {
  constexpr int kLevels = 100000;
  const std::string svg = Svg(testing::DeepChain(kLevels));
  size_t frames = 0;
  for (size_t at = svg.find("<g class=\"frame\""); at != std::string::npos;
       at = svg.find("<g class=\"frame\"", at + 1)) {
    ++frames;
  }
  EXPECT_EQ(frames, kLevels + 1u);
  // The kernel sits on the top row, every level above ROOT's.
  EXPECT_THAT(svg, HasSubstr("data-d=\"100000\" data-name=\"k\"><title>k: 5 time (ns) "
                             "(100.00%)</title><rect x=\"10.00\" y=\"36.00\""));
}

}  // namespace
}  // namespace protond::view
