// /api/top's and /api/stalls' answers from hand-built trees (no protond: the integration test
// has one), and their parameters as `protonctl top`'s arguments.
#include "cli/ui/api.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/testing/test_profiles.h"

namespace protond::cli::ui {
namespace {

using ::testing::HasSubstr;

// A matmul on an H100 SXM, and a kernel's sampled line with two instructions.
v1::Tree Profile(bool instructions) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddH100Matmul(&tree, 1, 0);
  if (instructions) {  // the line's samples are its instructions'
    testing::AddNode(&tree, 2, 1, "/src/mm.py:12@matmul");
    testing::AddSampled(&tree, 3, 2, "0x0170  LDG.E R4, desc[UR4][R2.64]", 7,
                        {{"stalled_long_scoreboard", 6}, {"stalled_selected", 1}});
    testing::AddSampled(&tree, 4, 2, "0x0180", 3, {{"stalled_wait", 3}});
    tree.add_notes("1 instructions without SASS text: protond found no nvdisasm");
  } else {
    testing::AddSampled(
        &tree, 2, 1, "/src/mm.py:12@matmul", 10,
        {{"stalled_long_scoreboard", 6}, {"stalled_wait", 3}, {"stalled_selected", 1}});
  }
  testing::AddH100Sxm(&tree);
  return tree;
}

TopArgs Args(const std::map<std::string, std::string>& parameters, bool stalls) {
  absl::StatusOr<TopArgs> args = TopArgsOf(parameters, stalls);
  EXPECT_TRUE(args.ok()) << args.status();
  return args.ok() ? *args : TopArgs{};
}

TEST(ApiTest, TopParametersAreProtonctlTopsArguments) {
  const TopArgs args = Args({{"session", "7"}, {"limit", "3"}, {"names", "full"}}, false);
  EXPECT_EQ(args.profile, "7");
  EXPECT_EQ(args.limit, 3);
  EXPECT_EQ(args.kernel_names, view::KernelNames::kFull);
  EXPECT_FALSE(args.stalls);
  EXPECT_EQ(Args({{"session", "7"}}, true).limit, view::kDefaultTopKernels);
  EXPECT_TRUE(Args({{"session", "7"}}, true).stalls);
  EXPECT_EQ(TopArgsOf({{"session", "7"}, {"limit", "-1"}}, false).status().message(),
            "limit: -n needs a number >= 0, not '-1'");
  EXPECT_EQ(TopArgsOf({{"limit", "1"}}, false).status().message(),
            "session: the parameter is missing");
}

TEST(ApiTest, TopIsTopsKernelsWithTheDevices) {
  absl::StatusOr<nlohmann::json> json = TopJson(Profile(false), Args({{"session", "1"}}, false));
  ASSERT_TRUE(json.ok()) << json.status();
  ASSERT_EQ((*json)["kernels"].size(), 1u);
  EXPECT_EQ((*json)["kernels"][0]["name"], "nvjet");
  EXPECT_EQ((*json)["kernels"][0]["bound"], "compute");
  EXPECT_EQ((*json)["kernels"][0]["text"][7], "50.0");
  EXPECT_THAT((*json)["device_lines"][0].get<std::string>(), HasSubstr("H100 SXM datasheet"));
  ASSERT_EQ((*json)["devices"].size(), 1u);
  EXPECT_EQ((*json)["devices"][0]["text"][3], "sm_90");
  EXPECT_EQ((*json)["device_columns"][0], "PID");
}

TEST(ApiTest, StallsAreTopStallsWithEachLinesInstructionsForSass) {
  const TopArgs args = Args({{"session", "1"}}, true);
  absl::StatusOr<nlohmann::json> json = StallsJson(Profile(false), nullptr, args);
  ASSERT_TRUE(json.ok()) << json.status();
  ASSERT_EQ((*json)["lines"].size(), 1u);
  EXPECT_EQ((*json)["lines"][0]["text"][3], "long_scoreboard 67%, wait 33%");
  EXPECT_FALSE((*json)["lines"][0].contains("instructions"));
  EXPECT_FALSE(json->contains("instruction_notes"));

  const v1::Tree instruction_tree = Profile(true);
  json = StallsJson(Profile(false), &instruction_tree, args);
  ASSERT_TRUE(json.ok()) << json.status();
  const nlohmann::json& instructions = (*json)["lines"][0]["instructions"];
  ASSERT_EQ(instructions.size(), 2u);
  EXPECT_EQ(instructions[0]["offset"], "0x0170");
  EXPECT_EQ(instructions[0]["sass"], "LDG.E R4, desc[UR4][R2.64]");
  EXPECT_EQ(instructions[0]["samples"], 7);
  EXPECT_EQ(instructions[0]["stalled"], 6);
  EXPECT_EQ(instructions[0]["reasons_text"], "long_scoreboard 100%");
  EXPECT_EQ(instructions[1]["offset"], "0x0180");
  EXPECT_EQ(instructions[1]["sass"], "");
  EXPECT_EQ((*json)["instruction_notes"],
            nlohmann::json::array({"1 instructions without SASS text: protond found no nvdisasm"}));
}

}  // namespace
}  // namespace protond::cli::ui
