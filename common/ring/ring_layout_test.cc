#include "common/ring/ring_layout.h"

#include "gtest/gtest.h"

namespace protond::ring {
namespace {

TEST(RingLayoutTest, RegionBytesCountsTheHeaderEveryLaneHeaderAndEveryLane) {
  EXPECT_EQ(RegionBytes(1, kMinLaneDataBytes), 128u + 128u + 4096u);
  EXPECT_EQ(RegionBytes(kDefaultLaneCount, kDefaultLaneDataBytes),
            128u + 64u * (128u + (1u << 20)));
}

TEST(RingLayoutTest, ValidateGeometryNamesTheBadValue) {
  EXPECT_TRUE(ValidateGeometry({1, kMinLaneDataBytes}).ok());
  EXPECT_TRUE(ValidateGeometry({kMaxLaneCount, kMaxLaneDataBytes}).ok());
  EXPECT_EQ(ValidateGeometry({0, kMinLaneDataBytes}).message(),
            "lane count 0 is outside [1, 1024]");
  EXPECT_EQ(ValidateGeometry({1, 100}).message(),
            "lane size 100 bytes is not a power of two in [4096, 268435456]");
  EXPECT_EQ(ValidateGeometry({1, 1u << 29}).message(),
            "lane size 536870912 bytes is not a power of two in [4096, 268435456]");
}

TEST(RingLayoutTest, LanesFollowTheHeadersInOrder) {
  alignas(64) static uint8_t region[RegionBytes(2, kMinLaneDataBytes)];
  EXPECT_EQ(reinterpret_cast<uint8_t*>(LaneHeaderAt(region, 1)) - region, 128 + 128);
  EXPECT_EQ(LaneDataAt(region, 2, kMinLaneDataBytes, 0) - region, 128 + 2 * 128);
  EXPECT_EQ(LaneDataAt(region, 2, kMinLaneDataBytes, 1) - region, 128 + 2 * 128 + 4096);
}

}  // namespace
}  // namespace protond::ring
