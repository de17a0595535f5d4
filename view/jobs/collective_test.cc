#include "view/jobs/collective.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace protond::view {
namespace {

TEST(CollectiveTest, OpsParseInProtondsAndNcclsSpelling) {
  EXPECT_EQ(ParseCollectiveOp("all_reduce"), CollectiveOp::kAllReduce);
  EXPECT_EQ(ParseCollectiveOp("AllReduce"), CollectiveOp::kAllReduce);
  EXPECT_EQ(ParseCollectiveOp("ReduceScatter"), CollectiveOp::kReduceScatter);
  EXPECT_EQ(ParseCollectiveOp("AllToAll"), CollectiveOp::kAllToAll);
  EXPECT_EQ(ParseCollectiveOp("Send"), CollectiveOp::kSend);
  EXPECT_EQ(ParseCollectiveOp("recv"), CollectiveOp::kRecv);
  EXPECT_EQ(ParseCollectiveOp(""), std::nullopt);
  EXPECT_EQ(ParseCollectiveOp("all_reduce2"), std::nullopt);
  EXPECT_EQ(ParseCollectiveOp("___"), std::nullopt);
  EXPECT_EQ(ParseCollectiveOp(std::string(1000, 'a')), std::nullopt);
  for (CollectiveOp op :
       {CollectiveOp::kAllReduce, CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
        CollectiveOp::kBroadcast, CollectiveOp::kReduce, CollectiveOp::kAllToAll,
        CollectiveOp::kGather, CollectiveOp::kScatter, CollectiveOp::kSend, CollectiveOp::kRecv}) {
    EXPECT_EQ(ParseCollectiveOp(CollectiveOpName(op)), op) << CollectiveOpName(op);
  }
}

// nccl-tests' factors: 2(n-1)/n for all_reduce, (n-1)/n for the gathers, scatters and
// all_to_all, 1 for the rooted and point-to-point ones.
TEST(CollectiveTest, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kReduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kSend, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kRecv, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllReduce, 1), 0.0);
}

// 4 MB all-reduced over 8 ranks in 1 ms: 4 GB/s of algorithm bandwidth, 7 GB/s on the bus.
TEST(CollectiveTest, BusBandwidthIsBytesOverTimeTimesTheFactor) {
  EXPECT_DOUBLE_EQ(BusBandwidthGbps(CollectiveOp::kAllReduce, 8, 4'000'000, 1'000'000), 7.0);
  EXPECT_DOUBLE_EQ(BusBandwidthGbps(CollectiveOp::kBroadcast, 8, 4'000'000, 2'000'000), 2.0);
  EXPECT_EQ(BusBandwidthGbps(CollectiveOp::kAllReduce, 8, 4'000'000, 0), 0);
  EXPECT_EQ(BusBandwidthGbps(CollectiveOp::kAllReduce, 8, 4'000'000, -5), 0);
}

TEST(CollectiveTest, SumsOfTimesStopAtTheLimits) {
  int64_t total = INT64_MAX - 5;
  AddSaturating(total, 10);
  EXPECT_EQ(total, INT64_MAX);
  total = 5;
  AddSaturating(total, 10);
  EXPECT_EQ(total, 15);
}

}  // namespace
}  // namespace protond::view
