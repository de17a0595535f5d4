#include "view/tree/top_kernels.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "view/testing/test_profiles.h"

namespace protond::view {
namespace {

using testing::AddInt;
using testing::AddKernel;

// On an H100 SXM: the matmul reaches 0.1 s of FP16 work in 0.2 s (50% of the compute peak), the
// copy kernel 0.05 s of bytes in 0.07 s (71.4% of the bandwidth); add_one runs under two scopes
// and is summed over both.
v1::Tree H100Profile() {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "w_mm");
  testing::AddH100Matmul(&tree, 2, 1);
  AddInt(AddKernel(&tree, 3, 0, "_Z4copyPfS_", 140'000, 70'000'000), "bytes", v1::Metric::INCLUSIVE,
         167'500'000'000);
  testing::AddNode(&tree, 4, 0, "a");
  AddKernel(&tree, 5, 4, "add_one", 1000, 20'000'000);
  testing::AddNode(&tree, 6, 0, "b");
  AddKernel(&tree, 7, 6, "add_one", 1000, 10'000'000);
  testing::AddNode(&tree, 8, 6, "__proton_launch_metadata");
  AddKernel(&tree, 9, 8, "hidden", 1, 900'000'000);
  testing::AddH100Sxm(&tree);
  return tree;
}

TEST(TopKernelsTest, HeaviestFirstWithRooflineVerdicts) {
  absl::StatusOr<std::string> text =
      RenderTopKernels(H100Profile(), kDefaultTopKernels, KernelNames::kShort);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "device 0 (arch 90, 132 SMs, 5120-bit bus): H100 SXM datasheet peaks FP8 1978.9, "
            "FP16 989.4, TF32 494.7, FP64 66.9 TFLOP/s, 3350.0 GB/s\n"
            "TIME (ms)  TIME %   COUNT  AVG (us)  TFLOP/s    GB/s  BOUND    % OF PEAK  NAME\n"
            "  200.000    66.7     700   285.714    494.7   335.0  compute       50.0  nvjet\n"
            "   70.000    23.3  140000     0.500        -  2392.9  memory        71.4  copy\n"
            "   30.000    10.0    2000    15.000        -       -  -                -  add_one\n");
}

// The numbers behind top's cells, for the web page, and why a kernel has no verdict.
TEST(TopKernelsTest, BuildTopKernelsGivesTheNumbersAndWhyThereIsNoVerdict) {
  absl::StatusOr<TopKernels> top = BuildTopKernels(H100Profile(), 2, KernelNames::kShort);
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_EQ(top->note, "");
  ASSERT_EQ(top->device_lines.size(), 1u);
  EXPECT_EQ(top->device_lines[0], DevicePeaksLine(H100Profile().devices(0)));
  ASSERT_EQ(top->rows.size(), 2u);  // the limit
  const TopKernelRow& matmul = top->rows[0];
  EXPECT_EQ(matmul.shown_name, "nvjet");
  EXPECT_EQ(matmul.time_ns, 200'000'000);
  EXPECT_DOUBLE_EQ(matmul.share, 200.0 / 300);
  EXPECT_DOUBLE_EQ(*matmul.tflop_per_s, 494.7);
  EXPECT_DOUBLE_EQ(*matmul.gbyte_per_s, 335);
  EXPECT_EQ(matmul.memory_bound, false);
  EXPECT_DOUBLE_EQ(*matmul.percent_of_peak, 50);
  EXPECT_EQ(matmul.no_verdict_reason, "");
  EXPECT_EQ(matmul.cells, (std::vector<std::string>{"200.000", "66.7", "700", "285.714", "494.7",
                                                    "335.0", "compute", "50.0", "nvjet"}));
  EXPECT_EQ(top->rows[1].shown_name, "copy");
  EXPECT_EQ(top->rows[1].memory_bound, true);
  EXPECT_FALSE(top->rows[1].tflop_per_s.has_value());

  top = BuildTopKernels(H100Profile(), 3, KernelNames::kShort);
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_FALSE(top->rows[2].percent_of_peak.has_value());
  EXPECT_EQ(top->rows[2].no_verdict_reason,
            "no flops of a known width (flops8 to flops64) and no bytes");
  v1::Tree no_devices = H100Profile();
  no_devices.clear_devices();
  top = BuildTopKernels(no_devices, 1, KernelNames::kShort);
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_EQ(top->device_lines, std::vector<std::string>{"no device info: no roofline verdict"});
  EXPECT_EQ(top->rows[0].no_verdict_reason, "no peaks for its device (see the device lines)");
}

// What top lists, as numbers for other views: by driver name, heaviest first, summed over
// call paths, launch metadata left out.
TEST(TopKernelsTest, KernelsByGpuTimeAreTopsKernels) {
  absl::StatusOr<std::vector<KernelWork>> kernels = KernelsByGpuTime(H100Profile());
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(kernels->size(), 3u);
  EXPECT_EQ((*kernels)[0].name, "nvjet");
  EXPECT_EQ((*kernels)[0].time_ns, 200'000'000);
  EXPECT_EQ((*kernels)[1].name, "_Z4copyPfS_");
  EXPECT_EQ((*kernels)[1].time_ns, 70'000'000);
  EXPECT_EQ((*kernels)[2].name, "add_one");
  EXPECT_EQ((*kernels)[2].time_ns, 30'000'000);
  EXPECT_EQ((*kernels)[2].count, 2000u);
  v1::Tree no_gpu;
  testing::AddNode(&no_gpu, 0, 0, "ROOT");
  testing::AddNode(&no_gpu, 1, 0, "train", 3);
  kernels = KernelsByGpuTime(no_gpu);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  EXPECT_TRUE(kernels->empty());
}

// Kernels are told apart by their full names, and shown as asked.
TEST(TopKernelsTest, FullNamesAndInstantiationsThatShareAShortName) {
  v1::Tree tree = H100Profile();
  testing::AddKernel(&tree, 10, 0, "_Z4copyPiS_", 10, 1'000'000);  // copy(int*, int*)
  absl::StatusOr<std::string> text = RenderTopKernels(tree, 5, KernelNames::kFull);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("  copy(float*, float*)\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("  copy(int*, int*)\n"), std::string::npos) << *text;
  text = RenderTopKernels(tree, 5, KernelNames::kShort);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("140000     0.500"), std::string::npos) << *text;  // not merged with int
  EXPECT_NE(text->find("    10   100.000"), std::string::npos) << *text;
}

TEST(TopKernelsTest, LimitAndMangledNames) {
  absl::StatusOr<std::string> text = RenderTopKernels(H100Profile(), 2, KernelNames::kMangled);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("_Z4copyPfS_"), std::string::npos) << *text;
  EXPECT_EQ(text->find("add_one"), std::string::npos) << *text;
}

// Issue 26: the H200 (a bus width no row had) got no verdict. A device the table lacks gets
// peaks computed from its clocks, and the line says so.
TEST(TopKernelsTest, ADeviceTheTableLacksIsJudgedByComputedPeaks) {
  v1::Tree tree = H100Profile();
  tree.mutable_devices(0)->set_num_sms(80);
  absl::StatusOr<std::string> text = RenderTopKernels(tree, 1, KernelNames::kShort);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "device 0 (arch 90, 80 SMs, 5120-bit bus): computed from its clocks (1980 MHz, memory "
            "2619 MHz) peaks FP8 1297.6, FP16 648.8, TF32 324.4, FP64 40.6 TFLOP/s, 3352.3 GB/s\n"
            "TIME (ms)  TIME %  COUNT  AVG (us)  TFLOP/s   GB/s  BOUND    % OF PEAK  NAME\n"
            "  200.000    66.7    700   285.714    494.7  335.0  compute       76.2  nvjet\n");
}

TEST(TopKernelsTest, UnknownDeviceHasNoVerdict) {
  v1::Tree tree = H100Profile();
  tree.mutable_devices(0)->set_arch(75);
  absl::StatusOr<std::string> text = RenderTopKernels(tree, 1, KernelNames::kShort);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "device 0 (arch 75, 132 SMs, 5120-bit bus): no roofline verdict: not in the peak "
            "table, and its peaks cannot be computed (no per-SM rates for the arch, or no "
            "clocks)\n"
            "TIME (ms)  TIME %  COUNT  AVG (us)  TFLOP/s   GB/s  BOUND  % OF PEAK  NAME\n"
            "  200.000    66.7    700   285.714    494.7  335.0  -              -  nvjet\n");
}

TEST(TopKernelsTest, AProfileWithoutKernelsSaysSo) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "train");
  EXPECT_EQ(RenderTopKernels(tree, 20, KernelNames::kShort).value(),
            "no GPU kernels in this profile\n");
}

}  // namespace
}  // namespace protond::view
