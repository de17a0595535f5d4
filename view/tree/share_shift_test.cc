#include "view/tree/share_shift.h"

#include "gtest/gtest.h"
#include "view/testing/test_profiles.h"

namespace protond::view {
namespace {

using testing::AddKernel;
using testing::AddNode;

// ROOT / step / {forward / matmul, optimizer / adam}, with these GPU times.
v1::Tree Profile(int64_t matmul_ns, int64_t adam_ns) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  AddNode(&tree, 1, 0, "step", 1);
  AddNode(&tree, 2, 1, "forward", 1);
  AddKernel(&tree, 3, 2, "matmul", 1, matmul_ns);
  AddNode(&tree, 4, 1, "optimizer", 1);
  AddKernel(&tree, 5, 4, "adam", 1, adam_ns);
  return tree;
}

TEST(ShareShiftTest, KernelsAndScopesWhoseShareMovedPastTheThresholdLargestFirst) {
  // Then: matmul 80%, adam 20%. Now: matmul 50%, adam 50%; twice the GPU time in all.
  const absl::StatusOr<ShareShifts> shifts =
      FindShareShifts(Profile(1000, 1000), Profile(800, 200), 0.05);
  ASSERT_TRUE(shifts.ok()) << shifts.status();
  EXPECT_TRUE(shifts->gpu_time);
  EXPECT_DOUBLE_EQ(shifts->now_total_ns, 2000);
  EXPECT_DOUBLE_EQ(shifts->then_total_ns, 1000);
  // step holds all the GPU time on both sides: it did not move.
  ASSERT_EQ(shifts->moved.size(), 4u);
  auto find = [&](const std::string& name) {
    for (const ShareShift& shift : shifts->moved) {
      if (shift.name == name) return shift;
    }
    ADD_FAILURE() << name << " did not move";
    return ShareShift{};
  };
  EXPECT_TRUE(find("adam").kernel);
  EXPECT_DOUBLE_EQ(find("adam").then_share, 0.2);
  EXPECT_DOUBLE_EQ(find("adam").now_share, 0.5);
  EXPECT_TRUE(find("matmul").kernel);
  EXPECT_FALSE(find("step/forward").kernel);
  EXPECT_DOUBLE_EQ(find("step/optimizer").now_share, 0.5);
  const std::string text = RenderShareShifts(*shifts, 0.05, KernelNames::kShort);
  EXPECT_NE(text.find("share of GPU time: now 0.002 ms, then 0.001 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("20.0   50.0   +30.0  kernel  adam"), std::string::npos) << text;
  EXPECT_NE(text.find("80.0   50.0   -30.0  scope   step/forward"), std::string::npos) << text;
}

TEST(ShareShiftTest, MovesWithinTheThresholdAreNotListed) {
  const absl::StatusOr<ShareShifts> shifts =
      FindShareShifts(Profile(810, 190), Profile(800, 200), 0.05);
  ASSERT_TRUE(shifts.ok()) << shifts.status();
  EXPECT_TRUE(shifts->moved.empty());
  EXPECT_NE(RenderShareShifts(*shifts, 0.05, KernelNames::kShort)
                .find("no kernel or scope moved by more than 5.0 points"),
            std::string::npos);
}

TEST(ShareShiftTest, AKernelOnOneSideOnlyMovesFromOrToZero) {
  v1::Tree now = Profile(500, 500);
  AddKernel(&now, 6, 1, "all_reduce", 1, 1000);
  const absl::StatusOr<ShareShifts> shifts = FindShareShifts(now, Profile(500, 500), 0.05);
  ASSERT_TRUE(shifts.ok()) << shifts.status();
  // all_reduce moved 50 points, the others 25.
  ASSERT_EQ(shifts->moved.size(), 5u);
  EXPECT_EQ(shifts->moved[0].name, "all_reduce");
  EXPECT_DOUBLE_EQ(shifts->moved[0].then_share, 0);
  EXPECT_DOUBLE_EQ(shifts->moved[0].now_share, 0.5);
}

TEST(ShareShiftTest, WithoutGpuWorkTheScopesShareTheirWallTime) {
  auto cpu_profile = [](uint64_t load_ns, uint64_t train_ns) {
    v1::Tree tree;
    AddNode(&tree, 0, 0, "ROOT");
    AddNode(&tree, 1, 0, "main");  // open all along: no time of its own
    AddNode(&tree, 2, 1, "load", 1)->set_duration_ns_sum(load_ns);
    AddNode(&tree, 3, 1, "train", 1)->set_duration_ns_sum(train_ns);
    AddNode(&tree, 4, 3, "step", 1)->set_duration_ns_sum(train_ns / 2);
    return tree;
  };
  const absl::StatusOr<ShareShifts> shifts =
      FindShareShifts(cpu_profile(300, 700), cpu_profile(100, 900), 0.1);
  ASSERT_TRUE(shifts.ok()) << shifts.status();
  EXPECT_FALSE(shifts->gpu_time);
  // load 10% -> 30%, train 90% -> 70%, step 45% -> 35%.
  EXPECT_DOUBLE_EQ(shifts->now_total_ns, 1000);
  ASSERT_EQ(shifts->moved.size(), 3u);
  EXPECT_EQ(shifts->moved[2].name, "main/train/step");
  EXPECT_DOUBLE_EQ(shifts->moved[2].then_share, 0.45);
  EXPECT_DOUBLE_EQ(shifts->moved[2].now_share, 0.35);
  EXPECT_NE(RenderShareShifts(*shifts, 0.1, KernelNames::kShort)
                .find("share of scope time (no GPU work in either range)"),
            std::string::npos);
}

TEST(ShareShiftTest, ABadThresholdOrTreeIsRefused) {
  EXPECT_FALSE(FindShareShifts(Profile(1, 1), Profile(1, 1), 1.5).ok());
  EXPECT_FALSE(FindShareShifts(Profile(1, 1), Profile(1, 1), -0.1).ok());
  v1::Tree bad;
  AddNode(&bad, 0, 0, "ROOT");
  AddNode(&bad, 1, 5, "orphan");
  EXPECT_FALSE(FindShareShifts(bad, Profile(1, 1), 0.05).ok());
}

}  // namespace
}  // namespace protond::view
