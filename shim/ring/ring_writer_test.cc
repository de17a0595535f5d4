#include "shim/ring/ring_writer.h"

#include <vector>

#include "gtest/gtest.h"

namespace protond::ring {
namespace {

constexpr RegionGeometry kSmall{2, kMinLaneDataBytes};

TEST(RingWriterTest, RejectsBadGeometry) {
  EXPECT_FALSE(WritableRegion::Create({0, kMinLaneDataBytes}).ok());
  EXPECT_FALSE(WritableRegion::Create({1, 5000}).ok());
}

TEST(RingWriterTest, DropsAndCountsWhenFullThenResumesAfterRelease) {
  auto region = WritableRegion::Create(kSmall);
  ASSERT_TRUE(region.ok()) << region.status();
  LaneWriter writer = region->ClaimLane(1);
  ASSERT_TRUE(writer.valid());
  uint64_t record[2] = {0x0010000000000005, 0};
  for (uint32_t i = 0; i < kMinLaneDataBytes / 16; ++i) ASSERT_TRUE(writer.TryWrite(record, 16));
  EXPECT_FALSE(writer.TryWrite(record, 16));
  EXPECT_FALSE(writer.TryWrite(record, 16));
  LaneHeader* header = LaneHeaderAt(region->base(), 0);
  EXPECT_EQ(header->dropped_records.load(), 2u);
  header->read_pos.store(32);  // the daemon released two records
  EXPECT_TRUE(writer.TryWrite(record, 16));
  EXPECT_TRUE(writer.TryWrite(record, 16));
  EXPECT_FALSE(writer.TryWrite(record, 16));
  EXPECT_EQ(header->write_pos.load(), kMinLaneDataBytes + 32u);
}

TEST(RingWriterTest, RecordsWrapAroundTheEndOfTheLane) {
  auto region = WritableRegion::Create(kSmall);
  ASSERT_TRUE(region.ok());
  LaneWriter writer = region->ClaimLane(1);
  std::vector<uint8_t> filler(kMinLaneDataBytes - 8, 0xee);
  ASSERT_TRUE(writer.TryWrite(filler.data(), filler.size()));
  LaneHeaderAt(region->base(), 0)->read_pos.store(filler.size());
  const uint8_t record[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  ASSERT_TRUE(writer.TryWrite(record, 16));
  const uint8_t* data = LaneDataAt(region->base(), 2, kMinLaneDataBytes, 0);
  EXPECT_EQ(data[kMinLaneDataBytes - 8], 1);
  EXPECT_EQ(data[0], 9);
  EXPECT_EQ(data[7], 16);
}

TEST(RingWriterTest, LanesAreClaimedOnceAndCountedWhenAllAreTaken) {
  auto region = WritableRegion::Create(kSmall);
  ASSERT_TRUE(region.ok());
  LaneWriter a = region->ClaimLane(10);
  LaneWriter b = region->ClaimLane(11);
  LaneWriter c = region->ClaimLane(12);
  EXPECT_TRUE(a.valid());
  EXPECT_TRUE(b.valid());
  EXPECT_FALSE(c.valid());
  EXPECT_EQ(static_cast<RegionHeader*>(region->base())->no_lane_dropped_records.load(), 1u);
  EXPECT_EQ(LaneHeaderAt(region->base(), 1)->owner_tid.load(), 11u);
  a.Release();
  EXPECT_TRUE(region->ClaimLane(13).valid());
}

}  // namespace
}  // namespace protond::ring
