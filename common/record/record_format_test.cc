// Golden bytes: these pin the wire format of version 3. If one fails, the format changed:
// bump kRecordFormatVersion and update docs/record-format.md instead of the expected bytes.
#include "common/record/record_format.h"

#include <vector>

#include "common/record/test_records.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::record {
namespace {

using ::testing::ElementsAreArray;

template <typename T>
std::vector<uint8_t> Bytes(const T& value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  return std::vector<uint8_t>(p, p + sizeof(T));
}

std::vector<uint8_t> Expected(std::initializer_list<int> bytes) {
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

TEST(RecordFormatTest, ScopeEnterGoldenBytes) {
  EXPECT_THAT(Bytes(MakeTimed(Kind::kScopeEnter, 7, 0x0102030405060708)),
              ElementsAreArray(Expected({5, 0, 16, 0, 7, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1})));
}

TEST(RecordFormatTest, TscScopeExitGoldenBytes) {
  EXPECT_THAT(Bytes(MakeTimed(Kind::kScopeExit, 7, 0x0102030405060708, kTimestampTsc)),
              ElementsAreArray(Expected({6, 1, 16, 0, 7, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1})));
}

TEST(RecordFormatTest, ClockSyncGoldenBytes) {
  EXPECT_THAT(Bytes(MakeClockSync(0x0102030405060708, 0x1112131415161718)),
              ElementsAreArray(Expected({17,   0,    24,   0,    0,    0,    0,    0,  //
                                         8,    7,    6,    5,    4,    3,    2,    1,  //
                                         0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11})));
}

TEST(RecordFormatTest, CollectiveGoldenBytes) {
  CollectiveRecord c = MakeCollective(3, kTimestampTsc);
  c.start = 1;
  c.end = 2;
  c.comm_hash = 0x0102030405060708;
  c.seq = 4;
  c.count = 5;
  c.rank = 6;
  c.nranks = 7;
  SetCollectiveText("AllReduce", c.op);
  SetCollectiveText("ncclFloat32", c.datatype);
  SetCollectiveText("RING", c.algorithm);
  SetCollectiveText("LL", c.protocol);
  c.launch_correlation_id = 0x0a0b0c0d;
  c.collective_flags = kCollectiveLaunchKnown;
  std::vector<uint8_t> expected = Expected({19, 1, 128, 0, 3, 0, 0, 0,  //
                                            1,  0, 0,   0, 0, 0, 0, 0,  //
                                            2,  0, 0,   0, 0, 0, 0, 0,  //
                                            8,  7, 6,   5, 4, 3, 2, 1,  //
                                            4,  0, 0,   0, 0, 0, 0, 0,  //
                                            5,  0, 0,   0, 0, 0, 0, 0,  //
                                            6,  0, 0,   0, 7, 0, 0, 0});
  for (std::string_view text : {"AllReduce", "ncclFloat32", "RING", "LL"}) {
    std::vector<uint8_t> field(kCollectiveTextBytes, 0);
    std::copy(text.begin(), text.end(), field.begin());
    expected.insert(expected.end(), field.begin(), field.end());
  }
  expected.insert(expected.end(), {0x0d, 0x0c, 0x0b, 0x0a, 1, 0, 0, 0});
  EXPECT_THAT(Bytes(c), ElementsAreArray(expected));
}

TEST(RecordFormatTest, SessionBeginGoldenBytes) {
  EXPECT_THAT(Bytes(MakeSessionBegin(42)),
              ElementsAreArray(Expected({1, 0, 16, 0, 0, 0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 0})));
}

TEST(RecordFormatTest, ThreadBeginGoldenBytes) {
  EXPECT_THAT(Bytes(MakeThreadBegin(0x1234)),
              ElementsAreArray(Expected({2, 0, 8, 0, 0x34, 0x12, 0, 0})));
}

TEST(RecordFormatTest, Int64MetricGoldenBytes) {
  EXPECT_THAT(Bytes(MakeInt64Metric(3, 9, -2)),
              ElementsAreArray(Expected({7,    1,    24,   0,    3,    0,    0,    0,
                                         9,    0,    0,    0,    0,    0,    0,    0,  //
                                         0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})));
}

TEST(RecordFormatTest, VectorMetricGoldenBytes) {
  EXPECT_THAT(testing::VectorMetric(3, 9, {1, -2}),
              ElementsAreArray(Expected({18,   7,    32,   0,    3,    0,    0,    0,  //
                                         9,    0,    0,    0,    2,    0,    0,    0,  //
                                         1,    0,    0,    0,    0,    0,    0,    0,  //
                                         0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})));
}

TEST(RecordFormatTest, DoubleMetricGoldenBytes) {
  // 1.5 is 0x3FF8000000000000.
  EXPECT_THAT(Bytes(MakeDoubleMetric(3, 9, 1.5)),
              ElementsAreArray(Expected({7, 2, 24, 0, 3, 0, 0,    0,   9, 0, 0, 0, 0, 0, 0, 0,  //
                                         0, 0, 0,  0, 0, 0, 0xf8, 0x3f})));
}

TEST(RecordFormatTest, ContextDefGoldenBytesArePaddedWithZeros) {
  std::vector<uint8_t> out(NamedRecordBytes(3), 0xaa);
  ASSERT_EQ(EncodeContextDef(5, 2, "abc", out.data()), 24u);
  EXPECT_THAT(out,
              ElementsAreArray(Expected({3,   0,   24,  0, 5, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0,  //
                                         'a', 'b', 'c', 0, 0, 0, 0, 0})));
}

TEST(RecordFormatTest, NameDefGoldenBytes) {
  std::vector<uint8_t> out(NamedRecordBytes(8));
  ASSERT_EQ(EncodeNameDef(1, NameClass::kState, "phase-01", out.data()), 24u);
  EXPECT_THAT(out, ElementsAreArray(
                       Expected({4,   3,   24,  0,   1,   0,   0,   0,  8, 0, 0, 0, 0, 0, 0, 0,  //
                                 'p', 'h', 'a', 's', 'e', '-', '0', '1'})));
}

TEST(RecordFormatTest, NoticeGoldenBytes) {
  std::vector<uint8_t> out(NamedRecordBytes(2));
  ASSERT_EQ(EncodeNotice("hi", out.data()), 24u);
  EXPECT_THAT(out,
              ElementsAreArray(Expected({13,  0,   24, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,  //
                                         'h', 'i', 0,  0, 0, 0, 0, 0})));
}

TEST(RecordFormatTest, KernelGoldenBytes) {
  GpuActivityRecord kernel = MakeGpuActivity(Kind::kKernel, 0, 6);
  kernel.start_ns = 0x0102;
  kernel.end_ns = 0x0304;
  kernel.graph_node_id = 0x05;
  kernel.name_id = 9;
  kernel.correlation_id = 10;
  kernel.device_id = 1;
  kernel.stream_id = 7;
  kernel.graph_id = 3;
  kernel.grid[0] = 128;
  kernel.block[2] = 4;
  EXPECT_THAT(Bytes(kernel), ElementsAreArray(Expected({
                                 10, 0, 88, 0, 6,   0, 0, 0,  // header
                                 2,  1, 0,  0, 0,   0, 0, 0,  // start_ns
                                 4,  3, 0,  0, 0,   0, 0, 0,  // end_ns
                                 0,  0, 0,  0, 0,   0, 0, 0,  // bytes
                                 5,  0, 0,  0, 0,   0, 0, 0,  // graph_node_id
                                 9,  0, 0,  0, 10,  0, 0, 0,  // name_id, correlation_id
                                 1,  0, 0,  0, 7,   0, 0, 0,  // device_id, stream_id
                                 3,  0, 0,  0, 128, 0, 0, 0,  // graph_id, grid[0]
                                 0,  0, 0,  0, 0,   0, 0, 0,  // grid[1], grid[2]
                                 0,  0, 0,  0, 0,   0, 0, 0,  // block[0], block[1]
                                 4,  0, 0,  0, 0,   0, 0, 0,  // block[2], reserved
                             })));
}

// The H100: clock 1980000 kHz = 0x1e3660, memory clock 2619000 kHz = 0x27f678, bus width 5120 =
// 0x1400 bits, memory 0x13cc220000 bytes.
TEST(RecordFormatTest, DeviceInfoGoldenBytesArePaddedWithZeros) {
  std::vector<uint8_t> out(DeviceInfoRecordBytes(4), 0xaa);
  ASSERT_EQ(EncodeDeviceInfo(1, testing::H100(), "H100", out.data()), 48u);
  EXPECT_THAT(out,
              ElementsAreArray(Expected({
                  14,  0,   48,  0,   1,   0,   0,  0,  // header: kind, flags, size, device
                  90,  0,   0,   0,   132, 0,   0,  0,  // arch, num_sms
                  96,  54,  30,  0,   120, 246, 39, 0,  // clock_rate_khz, memory_clock_rate_khz
                  0,   20,  0,   0,   4,   0,   0,  0,  // bus_width_bits, name_bytes
                  0,   0,   34,  204, 19,  0,   0,  0,  // memory_bytes
                  'H', '1', '0', '0', 0,   0,   0,  0,  // name, padding
              })));
}

TEST(RecordFormatTest, PcSampleGoldenBytes) {
  const PcSampleRecord record = MakePcSample(7, 3, 9, 11, 0x1a0, 300, 0x0102030405060708);
  EXPECT_THAT(Bytes(record), ElementsAreArray(Expected({
                                 15, 0, 40, 0, 7,   0, 0, 0,  // header: kind, flags, size, context
                                 3,  0, 0,  0, 9,   0, 0, 0,  // kernel_name_id, line_name_id
                                 11, 0, 0,  0, 160, 1, 0, 0,  // reason_name_id, pc_offset
                                 44, 1, 0,  0, 0,   0, 0, 0,  // samples
                                 8,  7, 6,  5, 4,   3, 2, 1,  // cubin_crc
                             })));
}

TEST(RecordFormatTest, BlobChunkGoldenBytes) {
  EXPECT_THAT(testing::BlobChunk(5, 100, 96, "abcd"),
              ElementsAreArray(Expected({
                  16,  0,   32,  0,   5,   0, 0, 0,  // header: kind, flags, size, blob id
                  1,   0,   0,   0,   100, 0, 0, 0,  // class (instrumentation buffer), total
                  96,  0,   0,   0,   4,   0, 0, 0,  // offset, chunk_bytes
                  'a', 'b', 'c', 'd', 0,   0, 0, 0,  // the chunk, zero-padded
              })));
}

}  // namespace
}  // namespace protond::record
