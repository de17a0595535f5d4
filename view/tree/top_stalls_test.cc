#include "view/tree/top_stalls.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "view/testing/test_profiles.h"

namespace protond::view {
namespace {

using testing::AddInt;
using testing::AddNode;

// chase's load line stalls on memory under two scopes (summed); its loop line and spin's
// arithmetic line stall less.
v1::Tree SampledProfile() {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  AddNode(&tree, 1, 0, "a");
  AddNode(&tree, 2, 1, "chase");
  auto line = [&](uint32_t id, uint32_t parent, const char* name, int64_t samples,
                  const std::vector<std::pair<std::string, int64_t>>& reasons) {
    testing::AddSampled(&tree, id, parent, name, samples, reasons);
  };
  line(3, 2, "/src/k.cu:6@chase", 61,
       {{"stalled_long_scoreboard", 50}, {"stalled_wait", 10}, {"stalled_selected", 1}});
  line(4, 2, "/src/k.cu:5@chase", 10, {{"stalled_branch_resolving", 6}, {"stalled_selected", 4}});
  AddNode(&tree, 5, 0, "b");
  AddNode(&tree, 6, 5, "chase");
  line(7, 6, "/src/k.cu:6@chase", 40, {{"stalled_long_scoreboard", 40}});
  AddNode(&tree, 8, 0, "spin");
  line(9, 8, "/src/k.cu:14@spin", 30,
       {{"stalled_wait", 12},
        {"stalled_math_pipe_throttle", 8},
        {"stalled_dispatch_stall", 2},
        {"stalled_no_instruction", 1},
        {"stalled_selected", 7}});
  return tree;
}

TEST(TopStallsTest, LinesWithTheMostStalledSamplesFirstWithTheirTopReasons) {
  // 129 stalled samples in all: 100 + 23 + 6.
  EXPECT_EQ(
      RenderTopStalls(SampledProfile(), 20),
      "STALLED  STALLED %  SAMPLES  TOP REASONS                                          LINE\n"
      "    100       77.5      101  long_scoreboard 90%, wait 10%                        "
      "/src/k.cu:6@chase\n"
      "     23       17.8       30  wait 52%, math_pipe_throttle 35%, dispatch_stall 9%  "
      "/src/k.cu:14@spin\n"
      "      6        4.7       10  branch_resolving 100%                                "
      "/src/k.cu:5@chase\n");
}

TEST(TopStallsTest, TheLimitCutsTheList) {
  const std::string text = RenderTopStalls(SampledProfile(), 1);
  EXPECT_NE(text.find("/src/k.cu:6@chase"), std::string::npos);
  EXPECT_EQ(text.find("@spin"), std::string::npos);
}

TEST(TopStallsTest, AProfileWithoutSamplesSaysSo) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  EXPECT_EQ(RenderTopStalls(tree, 20),
            "no PC samples in this profile (record them with --mode pcsampling)\n");
}

// `tree -f sass`'s tree: a line's instructions, named by offset and text, under two call paths.
TEST(TopStallsTest, InstructionsByTheirLineInAddressOrderSummedOverCallPaths) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  for (uint32_t path : {1u, 5u}) {
    AddNode(&tree, path, 0, path == 1 ? "a" : "b");
    AddNode(&tree, path + 1, path, "/src/k.cu:6@chase");
    testing::AddSampled(&tree, path + 2, path + 1, "0x10000  LEA R4, P0, R2, UR10, 0x2", 10,
                        {{"stalled_long_scoreboard", 8}, {"stalled_selected", 2}});
    testing::AddSampled(&tree, path + 3, path + 1, "0x2000", 3, {{"stalled_wait", 3}});
  }
  testing::AddSampled(&tree, 9, 0, "/src/k.cu:9@spin", 4, {{"stalled_wait", 4}});  // a line
  absl::StatusOr<std::map<std::string, std::vector<StalledInstruction>>> by_line =
      InstructionsByLine(tree);
  ASSERT_TRUE(by_line.ok()) << by_line.status();
  ASSERT_EQ(by_line->size(), 1u);
  const std::vector<StalledInstruction>& chase = by_line->at("/src/k.cu:6@chase");
  ASSERT_EQ(chase.size(), 2u);
  EXPECT_EQ(chase[0].offset, "0x2000");  // 0x2000 before 0x10000: by address, not as text
  EXPECT_EQ(chase[0].text, "");
  EXPECT_EQ(chase[0].counts.samples, 6);
  EXPECT_EQ(chase[1].offset, "0x10000");
  EXPECT_EQ(chase[1].text, "LEA R4, P0, R2, UR10, 0x2");
  EXPECT_EQ(chase[1].counts.samples, 20);
  EXPECT_EQ(chase[1].counts.stalled, 16);
  EXPECT_EQ(StallReasonsText(TopStallReasons(chase[1].counts)), "long_scoreboard 100%");
}

}  // namespace
}  // namespace protond::view
