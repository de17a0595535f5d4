#include "view/json/top_json.h"

#include <string>

#include "gtest/gtest.h"
#include "view/testing/test_profiles.h"

namespace protond::view {
namespace {

using testing::AddKernel;

// On an H100 SXM: the matmul of test_profiles.h (compute bound, 50% of the peak), and a kernel
// with a hostile name and no metrics for a verdict.
v1::Tree Profile() {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddH100Matmul(&tree, 1, 0);
  AddKernel(&tree, 2, 0, "<img src=x onerror=alert(1)>", 4, 50'000'000);
  testing::AddH100Sxm(&tree);
  tree.mutable_devices(0)->set_name("NVIDIA H100 80GB HBM3");
  tree.mutable_devices(0)->set_pid(4242);
  tree.mutable_devices(0)->set_used(true);
  return tree;
}

TEST(TopJsonTest, KernelsWithTheirNumbersVerdictsAndCells) {
  absl::StatusOr<TopKernels> top = BuildTopKernels(Profile(), 20, KernelNames::kShort);
  ASSERT_TRUE(top.ok()) << top.status();
  const nlohmann::json json = TopKernelsJson(*top);
  EXPECT_EQ(json["columns"], nlohmann::json::parse(R"j(["TIME (ms)", "TIME %", "COUNT",
      "AVG (us)", "TFLOP/s", "GB/s", "BOUND", "% OF PEAK", "NAME"])j"));
  EXPECT_EQ(json["note"], nullptr);
  EXPECT_EQ(json["device_lines"].size(), 1u);
  ASSERT_EQ(json["kernels"].size(), 2u);
  const nlohmann::json& matmul = json["kernels"][0];
  EXPECT_EQ(matmul["name"], "nvjet");
  EXPECT_EQ(matmul["full_name"], "nvjet");
  EXPECT_EQ(matmul["time_ns"], 200'000'000);
  EXPECT_EQ(matmul["count"], 700);
  EXPECT_DOUBLE_EQ(matmul["average_ns"].get<double>(), 200'000'000.0 / 700);
  EXPECT_DOUBLE_EQ(matmul["tflop_per_s"].get<double>(), 494.7);
  EXPECT_DOUBLE_EQ(matmul["gbyte_per_s"].get<double>(), 335);
  EXPECT_EQ(matmul["bound"], "compute");
  EXPECT_DOUBLE_EQ(matmul["percent_of_peak"].get<double>(), 50);
  EXPECT_EQ(matmul["no_verdict"], nullptr);
  EXPECT_EQ(matmul["text"][6], "compute");
  const nlohmann::json& hostile = json["kernels"][1];
  EXPECT_EQ(hostile["name"], "<img src=x onerror=alert(1)>");
  EXPECT_DOUBLE_EQ(hostile["share"].get<double>(), 0.2);
  EXPECT_EQ(hostile["tflop_per_s"], nullptr);
  EXPECT_EQ(hostile["bound"], nullptr);
  EXPECT_EQ(hostile["percent_of_peak"], nullptr);
  EXPECT_EQ(hostile["no_verdict"], "no flops of a known width (flops8 to flops64) and no bytes");
}

TEST(TopJsonTest, AProfileWithoutKernelsHasANoteAndNoRows) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  absl::StatusOr<TopKernels> top = BuildTopKernels(tree, 20, KernelNames::kShort);
  ASSERT_TRUE(top.ok()) << top.status();
  const nlohmann::json json = TopKernelsJson(*top);
  EXPECT_EQ(json["note"], "no GPU kernels in this profile");
  EXPECT_EQ(json["kernels"], nlohmann::json::array());
}

TEST(TopJsonTest, DevicesAsProtonctlDevicesListsThemWithTheirPeaks) {
  const nlohmann::json json = DevicesJson(Profile().devices());
  EXPECT_EQ(json["device_columns"][2], "NAME");
  ASSERT_EQ(json["devices"].size(), 1u);
  EXPECT_EQ(json["devices"][0]["text"],
            nlohmann::json::parse(R"j(["4242", "0", "NVIDIA H100 80GB HBM3", "sm_90", "132",
                "1980", "2619", "5120", "0.0", "ran work"])j"));
  EXPECT_EQ(json["devices"][0]["peaks"],
            "device 0 (arch 90, 132 SMs, 5120-bit bus): H100 SXM datasheet peaks FP8 1978.9, "
            "FP16 989.4, TF32 494.7, FP64 66.9 TFLOP/s, 3350.0 GB/s");
}

// A kernel with one sampled line, stalled on memory and on a fixed dependency.
v1::Tree SampledProfile() {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "chase");
  testing::AddSampled(&tree, 2, 1, "/src/k.cu:6@chase", 61,
                      {{"stalled_long_scoreboard", 50}, {"stalled_wait", 10}});
  return tree;
}

TEST(TopJsonTest, StalledLinesWithTheirReasonsAndInstructions) {
  const TopStalls top = BuildTopStalls(SampledProfile(), 20);
  nlohmann::json json = TopStallsJson(top, nullptr);
  EXPECT_EQ(json["columns"][4], "LINE");
  ASSERT_EQ(json["lines"].size(), 1u);
  const nlohmann::json& line = json["lines"][0];
  EXPECT_EQ(line["line"], "/src/k.cu:6@chase");
  EXPECT_EQ(line["stalled"], 60);
  EXPECT_EQ(line["samples"], 61);
  EXPECT_EQ(line["share"], 1);
  EXPECT_EQ(line["reasons"][0]["reason"], "long_scoreboard");
  EXPECT_DOUBLE_EQ(line["reasons"][0]["share"].get<double>(), 50.0 / 60);
  EXPECT_EQ(line["text"][3], "long_scoreboard 83%, wait 17%");
  EXPECT_FALSE(line.contains("instructions"));

  std::map<std::string, std::vector<StalledInstruction>> instructions;
  StalledInstruction load{.offset = "0x0170", .text = "LDG.E R4, desc[UR4][R2.64]", .counts = {}};
  load.counts = {.samples = 5, .stalled = 4, .reasons = {{"wait", 4}}};
  instructions["/src/k.cu:6@chase"].push_back(load);
  json = TopStallsJson(top, &instructions);
  EXPECT_EQ(json["lines"][0]["instructions"], nlohmann::json::parse(R"j([{"offset": "0x0170",
      "sass": "LDG.E R4, desc[UR4][R2.64]", "samples": 5.0, "stalled": 4.0,
      "reasons": [{"reason": "wait", "samples": 4.0, "share": 1.0}],
      "reasons_text": "wait 100%"}])j"));
}

TEST(TopJsonTest, AProfileWithoutSamplesHasANote) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  const nlohmann::json json = TopStallsJson(BuildTopStalls(tree, 20), nullptr);
  EXPECT_EQ(json["note"], "no PC samples in this profile (record them with --mode pcsampling)");
  EXPECT_EQ(json["lines"], nlohmann::json::array());
}

}  // namespace
}  // namespace protond::view
