#include "view/history/window_summary.h"

#include "gtest/gtest.h"
#include "view/testing/test_profiles.h"

namespace protond::view {
namespace {

constexpr int64_t kNsPerMs = 1'000'000;

TEST(WindowSummaryTest, GpuTimeGpusAndTheHeaviestKernel) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "step", 10);
  testing::AddKernel(&tree, 2, 1, "_Z4copyPfS_", 10, 250 * kNsPerMs);
  testing::AddKernel(&tree, 3, 1, "matmul_kernel", 10, 500 * kNsPerMs);
  // The same kernel under another path adds to it: by name, as `protonctl top` counts.
  testing::AddKernel(&tree, 4, 0, "_Z4copyPfS_", 10, 300 * kNsPerMs);
  tree.add_devices()->set_used(true);
  tree.add_devices()->set_used(true);
  tree.add_devices()->set_used(false);
  absl::StatusOr<v1::WindowSummary> summary = SummarizeWindowTree(tree);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->gpu_time_ns(), 1050 * kNsPerMs);
  EXPECT_EQ(summary->gpus_used(), 2u);
  EXPECT_EQ(summary->top_kernel(), "_Z4copyPfS_");
  EXPECT_EQ(summary->top_kernel_time_ns(), 550 * kNsPerMs);
}

TEST(WindowSummaryTest, NoGpuWorkNoKernelOneGpu) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "train", 3);
  absl::StatusOr<v1::WindowSummary> summary = SummarizeWindowTree(tree);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->gpu_time_ns(), 0);
  EXPECT_EQ(summary->gpus_used(), 1u);
  EXPECT_EQ(summary->top_kernel(), "");
  EXPECT_EQ(summary->top_kernel_time_ns(), 0);
}

TEST(WindowSummaryTest, ATreeOfABadShapeIsRefused) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 9, "orphan");
  EXPECT_EQ(SummarizeWindowTree(tree).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace protond::view
