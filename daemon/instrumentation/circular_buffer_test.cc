#include "daemon/instrumentation/circular_buffer.h"

#include <cstdint>

#include "daemon/instrumentation/testing/test_buffer_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mlir-instrument/buffer/buffer_layout.h"

namespace protond::instrumentation {
namespace {

using internal::TestBufferBuilder;
using ::testing::ElementsAre;
using ::testing::FieldsAre;

constexpr uint32_t kOuter = 0;
constexpr uint32_t kInner = 1;

// "outer" around a loop of `iterations`, "inner" inside it: inner lasts 15 cycles every 20,
// outer 10 + 20 * iterations.
void WriteLoop(TestBufferBuilder& builder, uint32_t block, uint32_t warp, uint64_t base,
               int iterations) {
  builder.Start(block, warp, kOuter, base);
  for (int i = 0; i < iterations; ++i) {
    builder.Start(block, warp, kInner, base + 10 + 20 * i);
    builder.End(block, warp, kInner, base + 25 + 20 * i);
  }
  builder.End(block, warp, kOuter, base + 10 + 20 * iterations);
}

TEST(CircularBufferTest, GoldenRecordBytes) {
  uint8_t bytes[kRecordBytes];
  EncodeRecord({.is_end = true, .is_async = true, .scope_id = 5, .clock = 0x456'89ABCDEFull},
               bytes);
  // word0 = end | 5 << 23 | async | 0x456; word1 = 0x89abcdef.
  EXPECT_THAT(bytes, ElementsAre(0x56, 0x04, 0xC0, 0x82, 0xEF, 0xCD, 0xAB, 0x89));
  const Record record = DecodeRecord(bytes);
  EXPECT_TRUE(record.is_end);
  EXPECT_TRUE(record.is_async);
  EXPECT_EQ(record.scope_id, 5u);
  EXPECT_EQ(record.clock, 0x456'89ABCDEFull);
}

TEST(CircularBufferTest, NestedScopesInALoopOverWarpsAndBlocks) {
  constexpr int kIterations = 5;
  TestBufferBuilder builder(/*num_blocks=*/3, /*num_warps=*/4, /*data_bytes=*/1024);
  for (uint32_t block = 0; block < 3; ++block) {
    for (uint32_t warp = 0; warp < 4; ++warp) {
      WriteLoop(builder, block, warp, 1'000'000 * (block * 4 + warp + 1), kIterations);
    }
  }
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->num_blocks, 3u);
  ASSERT_EQ(decoded->blocks.size(), 3u);
  const BlockTrace& block1 = decoded->blocks[1];
  EXPECT_EQ(block1.block_id, 1u);
  EXPECT_EQ(block1.sm_id, 101u);
  EXPECT_EQ(block1.init_time_ns, 2000u);
  EXPECT_EQ(block1.pre_finalize_time_ns, 2500u);
  EXPECT_EQ(block1.post_finalize_time_ns, 2600u);
  ASSERT_EQ(block1.warps.size(), 4u);
  const WarpTrace& warp2 = block1.warps[2];
  EXPECT_EQ(warp2.warp_id, 2u);
  EXPECT_EQ(warp2.records_written, 12u);
  EXPECT_EQ(warp2.records_lost, 0u);
  ASSERT_EQ(warp2.intervals.size(), 6u);  // five inner, then outer (in the order of their ends)
  const uint64_t base = 1'000'000 * 7;
  // An inner interval holds one paired record (its end): 15 - 7. Outer holds ten inner records
  // and its end: 110 - 11 * 7.
  // The intervals are in the order of their ends: outer, the parent of each inner, is the last.
  // Places index decoded->scopes, by path: outer is 0, outer/inner 1.
  EXPECT_THAT(warp2.intervals[0], FieldsAre(kInner, base + 10, base + 25, 15u, 8u, false, 5, 1u));
  EXPECT_THAT(warp2.intervals[5], FieldsAre(kOuter, base, base + 110, 110u, 33u, false, -1, 0u));

  // Counts are iterations x warps x blocks; normalized_cycles divides by warps x blocks.
  ASSERT_EQ(decoded->scopes.size(), 2u);
  const ScopeTotals& outer = decoded->scopes[0];
  EXPECT_EQ(outer.name, "outer");
  EXPECT_EQ(outer.count, 12u);
  EXPECT_EQ(outer.cycles, 12u * 110);
  EXPECT_EQ(outer.adjusted_cycles, 12u * 33);
  EXPECT_DOUBLE_EQ(outer.normalized_cycles, 110.0);
  const ScopeTotals& inner = decoded->scopes[1];
  EXPECT_EQ(inner.name, "inner");
  EXPECT_EQ(inner.path, (std::vector<uint32_t>{kOuter, kInner}));  // nested, as Proton shows it
  EXPECT_EQ(inner.count, 5u * 12);
  EXPECT_EQ(inner.cycles, 60u * 15);
  EXPECT_EQ(inner.adjusted_cycles, 60u * 8);
  EXPECT_DOUBLE_EQ(inner.normalized_cycles, 5 * 15.0);
  // The inner scopes sum to at most the enclosing one.
  EXPECT_LE(inner.cycles, outer.cycles);
  EXPECT_EQ(DescribeProblems(decoded->problems), "");
}

// A scope run both inside another and on its own is two places in the tree; an async interval
// encloses nothing, even when a scope runs within its time, and one that outlasts the scope it
// started in is not inside it.
TEST(CircularBufferTest, ScopesNestByTheIntervalsAroundThem) {
  internal::TestBufferBuilder builder(1, 1, 128);
  builder.Start(0, 0, 0, 0);
  builder.Start(0, 0, 2, 5, /*async=*/true);
  builder.Start(0, 0, 1, 10);
  builder.End(0, 0, 1, 20);
  builder.End(0, 0, 0, 30);
  builder.Start(0, 0, 1, 40);
  builder.End(0, 0, 2, 42);
  builder.End(0, 0, 1, 45);
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout({"a", "b", "event"}));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->scopes.size(), 4u);
  EXPECT_EQ(decoded->scopes[0].path, (std::vector<uint32_t>{0}));
  EXPECT_EQ(decoded->scopes[0].cycles, 30u);
  EXPECT_EQ(decoded->scopes[1].path, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(decoded->scopes[1].cycles, 10u);
  EXPECT_EQ(decoded->scopes[2].path, (std::vector<uint32_t>{1}));  // not inside the event
  EXPECT_EQ(decoded->scopes[2].cycles, 5u);
  EXPECT_EQ(decoded->scopes[3].path, (std::vector<uint32_t>{2}));  // outlasts a: not inside it
  EXPECT_EQ(decoded->scopes[3].cycles, 37u);
  EXPECT_EQ(DescribeProblems(decoded->problems), "");
}

TEST(CircularBufferTest, WrappedRingKeepsTheNewestRecordsInWriteOrder) {
  // 64 data bytes for one warp: a ring of 8 records. The loop writes 12: outer start, five inner
  // pairs, outer end. The oldest four (outer start, inner pair 0, inner start 1) are lost.
  TestBufferBuilder builder(1, 1, 64);
  WriteLoop(builder, 0, 0, 5000, 5);
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const WarpTrace& warp = decoded->blocks[0].warps[0];
  EXPECT_EQ(warp.records_written, 12u);
  EXPECT_EQ(warp.records_lost, 4u);
  ASSERT_EQ(warp.intervals.size(), 3u);
  EXPECT_EQ(warp.intervals[0].start_cycle, 5000u + 10 + 40);  // inner pair 2, the oldest whole
  EXPECT_EQ(warp.intervals[2].end_cycle, 5000u + 25 + 80);
  const DecodeProblems& problems = decoded->problems;
  EXPECT_EQ(problems.records_lost, 4u);
  EXPECT_EQ(problems.warps_with_lost_records, 1u);
  EXPECT_EQ(problems.ends_without_start, 2u);  // inner end 1 and outer end
  EXPECT_EQ(problems.starts_without_end, 0u);
  ASSERT_EQ(decoded->scopes.size(), 1u);
  EXPECT_EQ(decoded->scopes[0].count, 3u);
  EXPECT_EQ(DescribeProblems(problems),
            "instrumentation: 4 records lost to wrap-around in 1 warp (buffer too small: raise "
            "buffer_size); 2 scopes ended without start");
}

TEST(CircularBufferTest, RingFilledExactlyLosesNothing) {
  TestBufferBuilder builder(1, 1, 64);
  for (int i = 0; i < 4; ++i) {
    builder.Start(0, 0, kInner, 100 * i);
    builder.End(0, 0, kInner, 100 * i + 50);
  }
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->blocks[0].warps[0].records_lost, 0u);
  EXPECT_EQ(decoded->scopes[0].count, 4u);
  EXPECT_EQ(decoded->scopes[0].cycles, 200u);
}

TEST(CircularBufferTest, UnprofiledBlocksAreSkippedButNormalizeAsProtonDoes) {
  TestBufferBuilder builder(3, 2, 256);
  for (uint32_t warp = 0; warp < 2; ++warp) {
    builder.Start(0, warp, kInner, 10);
    builder.End(0, warp, kInner, 70);
    builder.Start(2, warp, kInner, 10);
    builder.End(2, warp, kInner, 70);
  }
  builder.Put32(1, kPreambleOffset, kUnprofiledPreamble);
  builder.Put32(1, kDataBytesOffset, 12345);  // ignored: the block is not read
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->num_blocks, 3u);
  ASSERT_EQ(decoded->blocks.size(), 2u);
  EXPECT_EQ(decoded->blocks[1].block_id, 2u);
  EXPECT_EQ(decoded->problems.unprofiled_blocks, 1u);
  EXPECT_EQ(decoded->scopes[0].cycles, 240u);
  EXPECT_DOUBLE_EQ(decoded->scopes[0].normalized_cycles, 240.0 / (2 * 3));
  EXPECT_EQ(DescribeProblems(decoded->problems),
            "instrumentation: 1 block not profiled (preamble 0)");
}

TEST(CircularBufferTest, StartWithoutEnd) {
  TestBufferBuilder builder(1, 1, 256);
  builder.Start(0, 0, kOuter, 10);  // never ends
  builder.Start(0, 0, kInner, 20);  // replaced by the next start of the same scope
  builder.Start(0, 0, kInner, 30);
  builder.End(0, 0, kInner, 45);
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->problems.starts_without_end, 2u);
  ASSERT_EQ(decoded->scopes.size(), 1u);
  EXPECT_EQ(decoded->scopes[0].cycles, 15u);
  EXPECT_EQ(DescribeProblems(decoded->problems), "instrumentation: 2 scopes started without end");
}

TEST(CircularBufferTest, EndWithoutStart) {
  TestBufferBuilder builder(1, 1, 256);
  builder.End(0, 0, kInner, 5);
  builder.Start(0, 0, kInner, 10);
  builder.End(0, 0, kInner, 30);
  builder.End(0, 0, kInner, 40);
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->problems.ends_without_start, 2u);
  EXPECT_EQ(decoded->scopes[0].count, 1u);
  EXPECT_EQ(decoded->scopes[0].cycles, 20u);
  EXPECT_EQ(DescribeProblems(decoded->problems), "instrumentation: 2 scopes ended without start");
}

TEST(CircularBufferTest, ClockOverflowAcrossThe43BitBoundaryIsUnwrapped) {
  TestBufferBuilder builder(1, 1, 256);
  builder.Start(0, 0, kInner, kClockModulus - 10);
  builder.End(0, 0, kInner, 5);
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const ScopeInterval& interval = decoded->blocks[0].warps[0].intervals[0];
  EXPECT_EQ(interval.start_cycle, kClockModulus - 10);
  EXPECT_EQ(interval.end_cycle, kClockModulus + 5);
  EXPECT_EQ(interval.cycles, 15u);
  EXPECT_EQ(interval.adjusted_cycles, 8u);
  EXPECT_EQ(decoded->problems.clock_overflows, 1u);
  EXPECT_EQ(DescribeProblems(decoded->problems), "instrumentation: 1 clock overflow unwrapped");
}

TEST(CircularBufferTest, TinyIntervalGetsHalfARecordCostAsProtonDoes) {
  TestBufferBuilder builder(1, 1, 256);
  builder.Start(0, 0, kInner, 100);
  builder.End(0, 0, kInner, 103);  // shorter than one record's cost (7)
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->blocks[0].warps[0].intervals[0].adjusted_cycles, 3u);
}

TEST(CircularBufferTest, UnnamedScopeIdKeepsItsCyclesAndIsCounted) {
  TestBufferBuilder builder(1, 2, 256);
  for (uint32_t warp = 0; warp < 2; ++warp) {
    builder.Start(0, warp, 7, 100, /*async=*/true);
    builder.End(0, warp, 7, 160);
    builder.Start(0, warp, 200, 200);
    builder.End(0, warp, 200, 210);
  }
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout({"outer", "", "x"}));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->scopes.size(), 2u);
  EXPECT_EQ(decoded->scopes[0].scope_id, 7u);
  EXPECT_EQ(decoded->scopes[0].name, "");
  EXPECT_EQ(decoded->scopes[0].cycles, 120u);
  EXPECT_TRUE(decoded->blocks[0].warps[0].intervals[0].async);
  EXPECT_EQ(decoded->problems.unnamed_scope_ids, 2u);
  EXPECT_EQ(DescribeProblems(decoded->problems), "instrumentation: 2 scope ids without a name");
}

TEST(CircularBufferTest, ProfiledWarpsShareTheDataInTheirOrder) {
  // Warps 1 and 3 of 4 record; each gets half of the 128 data bytes.
  TestBufferBuilder builder(1, 4, 128, {1, 3});
  builder.Start(0, 1, kInner, 10);
  builder.End(0, 1, kInner, 20);
  builder.Start(0, 3, kOuter, 10);
  builder.End(0, 3, kOuter, 40);
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const auto& warps = decoded->blocks[0].warps;
  ASSERT_EQ(warps.size(), 2u);
  EXPECT_EQ(warps[0].warp_id, 1u);
  EXPECT_EQ(warps[0].intervals[0].cycles, 10u);
  EXPECT_EQ(warps[1].warp_id, 3u);
  EXPECT_EQ(warps[1].intervals[0].cycles, 30u);
  EXPECT_DOUBLE_EQ(decoded->scopes[0].normalized_cycles, 30.0 / 4);  // all 4 warps normalize
}

TEST(CircularBufferTest, DataBytesFromTheHeadersWhenTheLayoutLeavesThemOpen) {
  TestBufferBuilder builder(2, 1, 64);
  builder.Start(1, 0, kInner, 10);
  builder.End(1, 0, kInner, 20);
  BufferLayout layout = builder.Layout();
  layout.data_bytes = 0;
  auto decoded = DecodeCircularBuffer(builder.bytes(), layout);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->scopes[0].cycles, 10u);
}

TEST(CircularBufferTest, AllProblemsInOneSentence) {
  DecodeProblems problems{.unprofiled_blocks = 2,
                          .records_lost = 12,
                          .warps_with_lost_records = 3,
                          .starts_without_end = 1,
                          .ends_without_start = 1,
                          .clock_overflows = 2,
                          .unnamed_scope_ids = 1};
  EXPECT_EQ(DescribeProblems(problems),
            "instrumentation: 12 records lost to wrap-around in 3 warps (buffer too small: raise "
            "buffer_size); 1 scope started without end; 1 scope ended without start; 2 clock "
            "overflows unwrapped; 1 scope id without a name; 2 blocks not profiled (preamble 0)");
  EXPECT_EQ(ListProblems({.clock_overflows = 1}), "1 clock overflow unwrapped");
  EXPECT_EQ(ListProblems({}), "");
}

TEST(CircularBufferTest, ProblemsOfLaunchesAddUp) {
  DecodeProblems total{.records_lost = 12, .warps_with_lost_records = 3, .unnamed_scope_ids = 2};
  AddProblems({.records_lost = 4, .warps_with_lost_records = 1, .unnamed_scope_ids = 1}, total);
  AddProblems({.starts_without_end = 1, .unnamed_scope_ids = 3}, total);
  EXPECT_EQ(total.records_lost, 16u);
  EXPECT_EQ(total.warps_with_lost_records, 4u);
  EXPECT_EQ(total.starts_without_end, 1u);
  EXPECT_EQ(total.unnamed_scope_ids, 3u);  // distinct ids: the most any launch had
}

}  // namespace
}  // namespace protond::instrumentation
