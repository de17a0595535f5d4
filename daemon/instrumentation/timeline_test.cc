#include "daemon/instrumentation/timeline.h"

#include <cstdint>

#include "daemon/instrumentation/circular_buffer.h"
#include "daemon/instrumentation/testing/test_buffer_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mlir-instrument/buffer/buffer_layout.h"

namespace protond::instrumentation {
namespace {

using internal::TestBufferBuilder;
using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::FieldsAre;

constexpr uint32_t kOuter = 0;
constexpr uint32_t kInner = 1;

// Block b's window on the global timer: init at 1 ms * (b + 1), pre-finalize `window_ns` later.
void SetWindow(TestBufferBuilder& builder, uint32_t block, uint64_t window_ns) {
  builder.Put64(block, kInitTimeOffset, 1'000'000 * (block + 1));
  builder.Put64(block, kPreFinalizeTimeOffset, 1'000'000 * (block + 1) + window_ns);
}

DecodedBuffer Decode(const TestBufferBuilder& builder) {
  absl::StatusOr<DecodedBuffer> decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  return *decoded;
}

uint32_t PlaceOf(const DecodedBuffer& decoded, std::vector<uint32_t> path) {
  for (uint32_t i = 0; i < decoded.scopes.size(); ++i) {
    if (decoded.scopes[i].path == path) return i;
  }
  ADD_FAILURE() << "no place for that path";
  return 0;
}

TEST(TimelineTest, MeasuresTheClockAndLaysEachBlockFromItsInitTime) {
  // Block 0: outer spans 40000 cycles in a 20 us window: 2 cycles a ns. Inner 1000..3000 cycles
  // after outer's start. Block 1 runs on another SM whose clock started elsewhere.
  TestBufferBuilder builder(2, 1, 64);
  SetWindow(builder, 0, 20'000);
  SetWindow(builder, 1, 20'000);
  builder.Start(0, 0, kOuter, 5'000);
  builder.Start(0, 0, kInner, 6'000);
  builder.End(0, 0, kInner, 8'000);
  builder.End(0, 0, kOuter, 45'000);
  builder.Start(1, 0, kOuter, 900'000);
  builder.End(1, 0, kOuter, 940'000);
  const DecodedBuffer decoded = Decode(builder);

  const KernelTimeline timeline = PlaceOnTimeline(decoded, 1'980'000, 100);

  EXPECT_EQ(timeline.clock_source, ClockSource::kMeasured);
  EXPECT_THAT(timeline.cycles_per_ns, DoubleEq(2.0));
  const uint32_t outer = PlaceOf(decoded, {kOuter});
  const uint32_t inner = PlaceOf(decoded, {kOuter, kInner});
  EXPECT_THAT(timeline.intervals,
              ElementsAre(FieldsAre(100, 0, 0, inner, 1'000'500, 1'001'500, 2'000),
                          FieldsAre(100, 0, 0, outer, 1'000'000, 1'020'000, 40'000),
                          FieldsAre(101, 1, 0, outer, 2'000'000, 2'020'000, 40'000)));
  EXPECT_EQ(timeline.left_out, 0u);
}

TEST(TimelineTest, ShortBlocksTakeTheDeviceClockAndWithoutItOneGigahertz) {
  TestBufferBuilder builder(1, 1, 64);
  SetWindow(builder, 0, kMinMeasuredSpanNs - 1);
  builder.Start(0, 0, kOuter, 100);
  builder.End(0, 0, kOuter, 1'900);
  const DecodedBuffer decoded = Decode(builder);

  const KernelTimeline device = PlaceOnTimeline(decoded, 1'800'000, 100);
  EXPECT_EQ(device.clock_source, ClockSource::kDeviceClock);
  EXPECT_THAT(device.cycles_per_ns, DoubleEq(1.8));
  EXPECT_THAT(device.intervals, ElementsAre(FieldsAre(100, 0, 0, 0, 1'000'000, 1'001'000, 1'800)));

  const KernelTimeline assumed = PlaceOnTimeline(decoded, 0, 100);
  EXPECT_EQ(assumed.clock_source, ClockSource::kAssumed);
  EXPECT_THAT(assumed.intervals, ElementsAre(FieldsAre(100, 0, 0, 0, 1'000'000, 1'001'800, 1'800)));
}

TEST(TimelineTest, AnImplausibleMeasuredRateIsNotUsed) {
  // 10^6 cycles in 10 us would be a 100 GHz clock: a broken header, not a measurement.
  TestBufferBuilder builder(1, 1, 64);
  SetWindow(builder, 0, kMinMeasuredSpanNs);
  builder.Start(0, 0, kOuter, 0);
  builder.End(0, 0, kOuter, 1'000'000);
  EXPECT_EQ(PlaceOnTimeline(Decode(builder), 1'000'000, 100).clock_source,
            ClockSource::kDeviceClock);
}

TEST(TimelineTest, TheRateIsTheNinetiethPercentileOfTheBlocks) {
  // Ten blocks at 1.0, 1.1, ..., 1.9 cycles a ns: the 90th percentile of ten is the ninth.
  TestBufferBuilder builder(10, 1, 64);
  for (uint32_t block = 0; block < 10; ++block) {
    SetWindow(builder, block, 10'000);
    builder.Start(block, 0, kOuter, 0);
    builder.End(block, 0, kOuter, 10'000 + 1'000 * block);
  }
  EXPECT_THAT(PlaceOnTimeline(Decode(builder), 0, 100).cycles_per_ns, DoubleEq(1.8));
}

TEST(TimelineTest, IntervalsPastTheLimitAreCountedNotPlaced) {
  TestBufferBuilder builder(1, 2, 128);
  for (uint32_t warp = 0; warp < 2; ++warp) {
    builder.Start(0, warp, kOuter, 10);
    builder.Start(0, warp, kInner, 20);
    builder.End(0, warp, kInner, 30);
    builder.End(0, warp, kOuter, 40);
  }
  const KernelTimeline timeline = PlaceOnTimeline(Decode(builder), 0, 3);
  ASSERT_EQ(timeline.intervals.size(), 3u);
  EXPECT_EQ(timeline.intervals[2].warp_id, 1u);
  EXPECT_EQ(timeline.left_out, 1u);
}

}  // namespace
}  // namespace protond::instrumentation
