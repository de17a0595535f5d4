// Malformed buffers and layouts: each hard error with its exact message, and truncated buffers.
#include <cstdint>
#include <span>
#include <vector>

#include "daemon/instrumentation/circular_buffer.h"
#include "daemon/instrumentation/testing/test_buffer_builder.h"
#include "gtest/gtest.h"
#include "mlir-instrument/buffer/buffer_layout.h"

namespace protond::instrumentation {
namespace {

using internal::TestBufferBuilder;

std::string ErrorOf(std::span<const uint8_t> bytes, const BufferLayout& layout) {
  auto decoded = DecodeCircularBuffer(bytes, layout);
  EXPECT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(decoded.status().message());
}

// 4 blocks of 2 warps with 64 data bytes each: 128-byte blocks.
TestBufferBuilder FourBlocks() {
  TestBufferBuilder builder(4, 2, 64);
  builder.Start(3, 1, 0, 10);
  builder.End(3, 1, 0, 20);
  return builder;
}

TEST(CircularBufferErrorsTest, SizeNotAWholeNumberOfBlocks) {
  TestBufferBuilder builder = FourBlocks();
  std::vector<uint8_t> bytes = builder.bytes();
  bytes.resize(1000);
  EXPECT_EQ(ErrorOf(bytes, builder.Layout()),
            "instrumentation buffer: 1000 bytes is not a whole number of 128-byte CTA blocks");
}

TEST(CircularBufferErrorsTest, EmptyBuffer) {
  EXPECT_EQ(ErrorOf({}, FourBlocks().Layout()), "instrumentation buffer: 0 bytes");
}

TEST(CircularBufferErrorsTest, TruncatedInsideABlock) {
  TestBufferBuilder builder = FourBlocks();
  std::span<const uint8_t> bytes(builder.bytes());
  EXPECT_EQ(ErrorOf(bytes.first(bytes.size() - 1), builder.Layout()),
            "instrumentation buffer: 511 bytes is not a whole number of 128-byte CTA blocks");
  EXPECT_EQ(ErrorOf(bytes.first(20), builder.Layout()),
            "instrumentation buffer: 20 bytes is not a whole number of 128-byte CTA blocks");
}

TEST(CircularBufferErrorsTest, TruncatedAtABlockBoundaryDecodesTheBlocksThatAreThere) {
  TestBufferBuilder builder = FourBlocks();
  std::span<const uint8_t> bytes(builder.bytes());
  auto decoded = DecodeCircularBuffer(bytes.first(3 * builder.block_bytes()), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->num_blocks, 3u);
  EXPECT_TRUE(decoded->scopes.empty());  // the only interval was in block 3
}

TEST(CircularBufferErrorsTest, BadPreamble) {
  TestBufferBuilder builder = FourBlocks();
  builder.Put32(3, kPreambleOffset, 0x12345678);
  EXPECT_EQ(ErrorOf(builder.bytes(), builder.Layout()),
            "block 3: preamble 0x12345678 is neither 0xdeadbeef nor 0 (not an instrumentation "
            "buffer, or a wrong block size)");
}

// The error for block `block` of FourBlocks() declaring `capacity` data bytes, with the
// layout's data bytes fixed (64) or left to the headers.
std::string CapacityError(uint32_t block, uint32_t capacity, bool layout_fixes_data_bytes) {
  TestBufferBuilder builder = FourBlocks();
  builder.Put32(block, kDataBytesOffset, capacity);
  BufferLayout layout = builder.Layout();
  if (!layout_fixes_data_bytes) layout.data_bytes = 0;
  return ErrorOf(builder.bytes(), layout);
}

TEST(CircularBufferErrorsTest, CapacityDiffersFromTheLayoutOrTheFirstBlock) {
  EXPECT_EQ(CapacityError(3, 32, true),
            "block 3: header capacity 32 does not match the layout's 64");
  EXPECT_EQ(CapacityError(2, 32, false),
            "block 2: header capacity 32 does not match the first block's 64");
}

TEST(CircularBufferErrorsTest, CapacityBeyondTheBlock) {
  EXPECT_EQ(CapacityError(0, 0xFFFFFFF0, false),
            "block 0: header capacity 4294967280 does not fit a 128-byte CTA block with 2 warps");
}

TEST(CircularBufferErrorsTest, CapacityNotWholeRecordsPerWarp) {
  EXPECT_EQ(CapacityError(0, 24, false),  // 12 bytes a warp
            "block 0: header capacity 24 does not split into whole 8-byte records among 2 "
            "profiled warps");
}

TEST(CircularBufferErrorsTest, OddWriteIndex) {
  TestBufferBuilder builder = FourBlocks();
  builder.Put32(3, TestBufferBuilder::WriteIndexOffset(1), 7);
  EXPECT_EQ(ErrorOf(builder.bytes(), builder.Layout()),
            "block 3 warp 1: write index 7 is not a whole number of 8-byte records (2 words "
            "each)");
}

TEST(CircularBufferErrorsTest, HugeWriteIndexOnlyCountsLostRecords) {
  TestBufferBuilder builder = FourBlocks();
  builder.Put32(3, TestBufferBuilder::WriteIndexOffset(1), 0xFFFFFFFE);
  auto decoded = DecodeCircularBuffer(builder.bytes(), builder.Layout());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->problems.records_lost, 0x7FFFFFFFu - 4);
}

TEST(CircularBufferErrorsTest, LayoutErrors) {
  TestBufferBuilder builder = FourBlocks();
  BufferLayout layout = builder.Layout();
  layout.num_warps = 0;
  EXPECT_EQ(ErrorOf(builder.bytes(), layout), "instrumentation layout: 0 warps per CTA");

  layout = builder.Layout();
  layout.num_warps = 30;
  EXPECT_EQ(ErrorOf(builder.bytes(), layout),
            "instrumentation layout: a 128-byte CTA block cannot hold the header and write "
            "indices of 30 warps (160 bytes)");

  layout = builder.Layout();
  layout.data_bytes = 96;
  EXPECT_EQ(ErrorOf(builder.bytes(), layout),
            "instrumentation layout: 96 data bytes do not fit a 128-byte CTA block with 2 warps");

  layout = builder.Layout();
  layout.profiled_warps = {1, 0};
  EXPECT_EQ(ErrorOf(builder.bytes(), layout),
            "instrumentation layout: profiled warp 0 is out of order or not below the CTA's 2 "
            "warps");
  layout.profiled_warps = {2};
  EXPECT_EQ(ErrorOf(builder.bytes(), layout),
            "instrumentation layout: profiled warp 2 is out of order or not below the CTA's 2 "
            "warps");

  layout = builder.Layout();
  layout.scope_names.resize(257);
  EXPECT_EQ(ErrorOf(builder.bytes(), layout),
            "instrumentation layout: 257 scope names, but a record has room for 256 scope ids");
}

}  // namespace
}  // namespace protond::instrumentation
