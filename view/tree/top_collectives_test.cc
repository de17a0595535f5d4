#include "view/tree/top_collectives.h"

#include <string>

#include "gtest/gtest.h"
#include "view/testing/test_profiles.h"

namespace protond::view {
namespace {

using testing::AddKernel;
using testing::AddNode;

constexpr char kAllReduce[] =
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";

// A DDP step: all_reduce under two scopes (summed), an all_gather, send/recv, a matmul, and an
// all_reduce inside a launch-metadata frame (left out, as in the tree).
v1::Tree DdpProfile() {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  AddNode(&tree, 1, 0, "backward");
  AddKernel(&tree, 2, 1, kAllReduce, 100, 60'000'000);
  AddNode(&tree, 3, 0, "optimizer");
  AddKernel(&tree, 4, 3, kAllReduce, 20, 20'000'000);
  AddKernel(&tree, 5, 0, "ncclDevKernel_AllGather_RING_LL", 10, 5'000'000);
  AddKernel(&tree, 6, 0, "ncclDevKernel_SendRecv", 4, 1'000'000);
  AddKernel(&tree, 7, 1, "nvjet_tst_128x256", 300, 114'000'000);
  AddNode(&tree, 8, 0, "__proton_launch_metadata");
  AddKernel(&tree, 9, 8, kAllReduce, 1, 900'000'000);
  return tree;
}

TEST(TopCollectivesTest, CollectivesByGpuTimeOverAllTheirPaths) {
  const absl::StatusOr<std::string> text = RenderTopCollectives(DdpProfile(), 20);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "TIME (ms)  TIME %  CALLS  AVG (us)  COLLECTIVE  DATATYPE  ALGORITHM  PROTOCOL\n"
            "   80.000    40.0    120   666.667  all_reduce  f32       RING       LL\n"
            "    5.000     2.5     10   500.000  all_gather  -         RING       LL\n"
            "    1.000     0.5      4   250.000  send_recv   -         -          -\n"
            "bytes and bus bandwidth: not known from kernel names (NCCL's profiler plugin will "
            "give them); which rank the others wait for: protonctl job on a trace session\n");
}

TEST(TopCollectivesTest, TheLimitKeepsTheHeaviest) {
  const absl::StatusOr<std::string> text = RenderTopCollectives(DdpProfile(), 1);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("all_reduce"), std::string::npos) << *text;
  EXPECT_EQ(text->find("all_gather"), std::string::npos) << *text;
}

TEST(TopCollectivesTest, AProfileWithoutNcclSaysSo) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  AddKernel(&tree, 1, 0, "add_one", 10, 1'000);
  const absl::StatusOr<std::string> text = RenderTopCollectives(tree, 20);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "no NCCL collective kernels in this profile\n");
}

}  // namespace
}  // namespace protond::view
