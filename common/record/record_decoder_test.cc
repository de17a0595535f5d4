#include "common/record/record_decoder.h"

#include <cstring>
#include <vector>

#include "common/record/test_records.h"
#include "gtest/gtest.h"

namespace protond::record {
namespace {

template <typename T>
std::vector<uint8_t> Bytes(const T& value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  return std::vector<uint8_t>(p, p + sizeof(T));
}

std::vector<uint8_t> ContextDef(uint32_t id, uint32_t parent, std::string_view name) {
  std::vector<uint8_t> out(NamedRecordBytes(name.size()));
  EncodeContextDef(id, parent, name, out.data());
  return out;
}

TEST(RecordDecoderTest, DecodesEveryKind) {
  auto enter = DecodeRecord(Bytes(MakeTimed(Kind::kScopeEnter, 7, 123)));
  ASSERT_TRUE(enter.ok()) << enter.status();
  EXPECT_EQ(enter->kind, Kind::kScopeEnter);
  EXPECT_EQ(enter->aux, 7u);
  EXPECT_EQ(enter->value, 123u);

  const auto def_bytes = ContextDef(4, 1, "matmul");  // the decoded name points into it
  auto def = DecodeRecord(def_bytes);
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(def->ref_id, 1u);
  EXPECT_EQ(def->name, "matmul");

  auto metric = DecodeRecord(Bytes(MakeInt64Metric(4, 2, 99)));
  ASSERT_TRUE(metric.ok()) << metric.status();
  EXPECT_EQ(metric->ref_id, 2u);
  EXPECT_EQ(static_cast<int64_t>(metric->value), 99);

  auto thread = DecodeRecord(Bytes(MakeThreadBegin(77)));
  ASSERT_TRUE(thread.ok()) << thread.status();
  EXPECT_EQ(thread->aux, 77u);
}

TEST(RecordDecoderTest, DecodesVectorMetrics) {
  const std::vector<uint8_t> bytes = testing::VectorMetric(4, 2, {1, -2, 3});
  auto metric = DecodeRecord(bytes);
  ASSERT_TRUE(metric.ok()) << metric.status();
  EXPECT_EQ(metric->kind, Kind::kVectorMetric);
  EXPECT_EQ(metric->flags, static_cast<uint8_t>(NameClass::kInt64VectorMetric));
  EXPECT_EQ(metric->size_bytes, 16u + 3 * 8);
  EXPECT_EQ(metric->aux, 4u);
  EXPECT_EQ(metric->ref_id, 2u);
  ASSERT_EQ(metric->elements.size(), 3u * 8);
  int64_t second;
  std::memcpy(&second, metric->elements.data() + 8, sizeof(second));
  EXPECT_EQ(second, -2);

  const std::vector<int64_t> longest(kMaxVectorMetricElements, 7);
  auto full = DecodeRecord(testing::VectorMetric(1, 2, longest, NameClass::kDoubleVectorMetric));
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->elements.size(), kMaxVectorMetricElements * 8u);
}

TEST(RecordDecoderTest, Malicious_VectorMetricsWithBadCountsOrTypesAreRefused) {
  std::vector<uint8_t> scalar_type = testing::VectorMetric(1, 2, {1, 2});
  scalar_type[1] = static_cast<uint8_t>(NameClass::kInt64Metric);
  EXPECT_EQ(DecodeRecord(scalar_type).status().message(), "vector metric has value type 1");

  // A count that disagrees with the size, either way, and one past the limit.
  std::vector<uint8_t> counted_more = testing::VectorMetric(1, 2, {1, 2});
  counted_more[12] = 3;
  EXPECT_EQ(DecodeRecord(counted_more).status().message(),
            "record kind 18 has size 32, expected 40");
  std::vector<uint8_t> counted_none = testing::VectorMetric(1, 2, {1, 2});
  counted_none[12] = 0;
  EXPECT_EQ(DecodeRecord(counted_none).status().message(),
            "vector metric of 0 elements; it needs 1 to 512");
  std::vector<uint8_t> too_long = testing::VectorMetric(1, 2, {1});
  const uint32_t huge = kMaxVectorMetricElements + 1;
  std::memcpy(too_long.data() + 12, &huge, sizeof(huge));
  EXPECT_EQ(DecodeRecord(too_long).status().message(),
            "vector metric of 513 elements; it needs 1 to 512");
  // A header alone: no room for the name and count.
  std::vector<uint8_t> header_only = testing::VectorMetric(1, 2, {1});
  header_only[2] = 8;
  header_only.resize(8);
  EXPECT_EQ(DecodeRecord(header_only).status().message(), "record kind 18 has size 8, expected 16");
}

TEST(RecordDecoderTest, DecodesTscTimestampsAndClockSync) {
  auto exit = DecodeRecord(Bytes(MakeTimed(Kind::kScopeExit, 7, 5'000'000'123, kTimestampTsc)));
  ASSERT_TRUE(exit.ok()) << exit.status();
  EXPECT_EQ(exit->flags, kTimestampTsc);
  EXPECT_EQ(exit->value, 5'000'000'123u);

  auto sync = DecodeRecord(Bytes(MakeClockSync(3'000'000'000, 1'000'000'000)));
  ASSERT_TRUE(sync.ok()) << sync.status();
  EXPECT_EQ(sync->kind, Kind::kClockSync);
  EXPECT_EQ(sync->size_bytes, 24u);
  EXPECT_EQ(sync->value, 3'000'000'000u);
  EXPECT_EQ(sync->monotonic_ns, 1'000'000'000u);
}

TEST(RecordDecoderTest, Malicious_TimedRecordWithUnknownFlagsIsRefused) {
  auto state = DecodeRecord(Bytes(MakeTimed(Kind::kStateEnter, 1, 10, 2)));
  EXPECT_EQ(state.status().message(), "timed record kind 8 has flags 2");
}

TEST(RecordDecoderTest, Malicious_ClockSyncWithBadFieldsIsRefused) {
  ClockSyncRecord flagged = MakeClockSync(1, 2);
  flagged.header.flags = 1;
  EXPECT_EQ(DecodeRecord(Bytes(flagged)).status().message(),
            "clock sync record has flags 1 and aux 0; both must be 0");
  ClockSyncRecord with_aux = MakeClockSync(1, 2);
  with_aux.header.aux = 9;
  EXPECT_EQ(DecodeRecord(Bytes(with_aux)).status().message(),
            "clock sync record has flags 0 and aux 9; both must be 0");
  // The size of a scope record: 16 bytes.
  TimedRecord short_sync = MakeTimed(Kind::kClockSync, 0, 1);
  EXPECT_EQ(DecodeRecord(Bytes(short_sync)).status().message(),
            "record kind 17 has size 16, expected 24");
}

TEST(RecordDecoderTest, DecodesGpuActivityAndNotices) {
  GpuActivityRecord kernel = MakeGpuActivity(Kind::kKernel, 0, 3);
  kernel.name_id = 5;
  kernel.end_ns = 100;
  auto decoded = DecodeRecord(Bytes(kernel));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->aux, 3u);
  EXPECT_EQ(decoded->activity.name_id, 5u);
  EXPECT_EQ(decoded->activity.end_ns, 100u);

  GpuActivityRecord copy =
      MakeGpuActivity(Kind::kMemcpy, static_cast<uint8_t>(CopyKind::kPeerToPeer), 0);
  copy.bytes = 4096;
  auto memcpy = DecodeRecord(Bytes(copy));
  ASSERT_TRUE(memcpy.ok()) << memcpy.status();
  EXPECT_EQ(memcpy->activity.bytes, 4096u);

  std::vector<uint8_t> notice(NamedRecordBytes(5));
  EncodeNotice("held!", notice.data());
  auto text = DecodeRecord(notice);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->name, "held!");
}

std::vector<uint8_t> DeviceInfo(uint32_t device_id, std::string_view name) {
  std::vector<uint8_t> out(DeviceInfoRecordBytes(name.size()));
  EncodeDeviceInfo(device_id, testing::H100(), name, out.data());
  return out;
}

TEST(RecordDecoderTest, DecodesDeviceInfo) {
  const auto bytes = DeviceInfo(3, "NVIDIA H100 80GB HBM3");
  auto r = DecodeRecord(bytes);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kind, Kind::kDeviceInfo);
  EXPECT_EQ(r->size_bytes, 64u);
  EXPECT_EQ(r->aux, 3u);
  EXPECT_EQ(r->name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r->device.arch, 90u);
  EXPECT_EQ(r->device.num_sms, 132u);
  EXPECT_EQ(r->device.clock_rate_khz, 1980000u);
  EXPECT_EQ(r->device.memory_clock_rate_khz, 2619000u);
  EXPECT_EQ(r->device.bus_width_bits, 5120u);
  EXPECT_EQ(r->device.memory_bytes, 85029158912u);

  auto nameless = DecodeRecord(DeviceInfo(0, ""));
  ASSERT_TRUE(nameless.ok()) << nameless.status();
  EXPECT_EQ(nameless->size_bytes, 40u);
  EXPECT_EQ(nameless->name, "");
}

TEST(RecordDecoderTest, Malicious_TruncatedDeviceInfo) {
  auto bytes = DeviceInfo(0, "");
  bytes[2] = 32;  // size_bytes: the fixed fields do not fit
  bytes.resize(32);
  auto r = DecodeRecord(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "record kind 14 has size 32, expected 40");
}

TEST(RecordDecoderTest, Malicious_DeviceNamePastTheRecord) {
  auto bytes = DeviceInfo(0, "H100");  // 48 bytes
  bytes[28] = 9;                       // name_bytes: 40 + 9 needs 56
  auto r = DecodeRecord(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "device info record has size 48 but name_bytes 9 needs 56");
}

TEST(RecordDecoderTest, Malicious_DeviceNameShorterThanTheRecord) {
  auto bytes = DeviceInfo(0, "NVIDIA H100 80GB HBM3");  // 64 bytes
  bytes[28] = 4;                                        // name_bytes: 40 + 4 needs 48, not 64
  auto r = DecodeRecord(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "device info record has size 64 but name_bytes 4 needs 48");
}

TEST(RecordDecoderTest, Malicious_HugeDeviceNameLength) {
  auto bytes = DeviceInfo(0, "H100");
  bytes[31] = 0x80;  // name_bytes 0x80000004
  auto r = DecodeRecord(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "device info name_bytes 2147483652 exceeds the limit of 4096");
}

TEST(RecordDecoderTest, Malicious_DeviceInfoWithFlags) {
  auto bytes = DeviceInfo(0, "H100");
  bytes[1] = 1;
  auto r = DecodeRecord(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "device info record has flags 1");
}

TEST(RecordDecoderTest, DecodesPcSample) {
  auto r = DecodeRecord(Bytes(MakePcSample(7, 3, 9, 11, 0x1a0, 300, 0xfeed)));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kind, Kind::kPcSample);
  EXPECT_EQ(r->aux, 7u);
  EXPECT_EQ(r->pc_sample.kernel_name_id, 3u);
  EXPECT_EQ(r->pc_sample.line_name_id, 9u);
  EXPECT_EQ(r->pc_sample.reason_name_id, 11u);
  EXPECT_EQ(r->pc_sample.pc_offset, 0x1a0u);
  EXPECT_EQ(r->pc_sample.samples, 300u);
  EXPECT_EQ(r->pc_sample.cubin_crc, 0xfeedu);
}

TEST(RecordDecoderTest, Malicious_PcSampleWithoutNamesOrWithFlagsIsRefused) {
  auto r = DecodeRecord(Bytes(MakePcSample(7, 3, 0, 11, 0, 1)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "PC sample record names kernel 3, line 0 and reason 11; none may be 0");
  PcSampleRecord flagged = MakePcSample(7, 3, 9, 11, 0, 1);
  flagged.header.flags = 2;
  EXPECT_EQ(DecodeRecord(Bytes(flagged)).status().message(), "PC sample record has flags 2");
}

CollectiveRecord AllReduceRecord() {
  CollectiveRecord c = MakeCollective(5, kTimestampTsc);
  c.start = 1000;
  c.end = 2500;
  c.comm_hash = 0xabcdef0123456789;
  c.seq = 41;
  c.count = 1 << 20;
  c.rank = 1;
  c.nranks = 2;
  SetCollectiveText("AllReduce", c.op);
  SetCollectiveText("ncclFloat32", c.datatype);
  SetCollectiveText("RING", c.algorithm);
  SetCollectiveText("LL", c.protocol);
  c.launch_correlation_id = 77;
  c.collective_flags = kCollectiveLaunchKnown;
  return c;
}

TEST(RecordDecoderTest, DecodesCollective) {
  auto r = DecodeRecord(Bytes(AllReduceRecord()));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kind, Kind::kCollective);
  EXPECT_EQ(r->aux, 5u);
  EXPECT_EQ(r->flags, kTimestampTsc);
  const CollectiveRecord& c = r->collective;
  EXPECT_EQ(c.start, 1000u);
  EXPECT_EQ(c.end, 2500u);
  EXPECT_EQ(c.comm_hash, 0xabcdef0123456789u);
  EXPECT_EQ(c.seq, 41u);
  EXPECT_EQ(c.count, 1u << 20);
  EXPECT_EQ(c.rank, 1u);
  EXPECT_EQ(c.nranks, 2u);
  EXPECT_STREQ(c.op, "AllReduce");
  EXPECT_STREQ(c.datatype, "ncclFloat32");
  EXPECT_STREQ(c.algorithm, "RING");
  EXPECT_STREQ(c.protocol, "LL");
  EXPECT_EQ(c.launch_correlation_id, 77u);
  EXPECT_EQ(c.collective_flags, kCollectiveLaunchKnown);
}

// A format-10 shim's record is 8 bytes shorter: read with no kernel known.
TEST(RecordDecoderTest, DecodesFormatTenCollectiveWithoutItsKernel) {
  auto bytes = Bytes(AllReduceRecord());
  bytes[2] = kCollectiveRecordV10Bytes;
  bytes.resize(kCollectiveRecordV10Bytes);
  auto r = DecodeRecord(bytes);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->collective.seq, 41u);
  EXPECT_STREQ(r->collective.protocol, "LL");
  EXPECT_EQ(r->collective.launch_correlation_id, 0u);
  EXPECT_EQ(r->collective.collective_flags, 0u);
}

TEST(RecordDecoderTest, CollectiveTextsAreCutToTheirField) {
  CollectiveRecord c = AllReduceRecord();
  SetCollectiveText("a_name_much_longer_than_sixteen_bytes", c.algorithm);
  auto r = DecodeRecord(Bytes(c));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_STREQ(r->collective.algorithm, "a_name_much_lon");
}

TEST(RecordDecoderTest, Malicious_CollectiveWithBadFieldsIsRefused) {
  CollectiveRecord unterminated = AllReduceRecord();
  std::memset(unterminated.op, 'A', sizeof(unterminated.op));
  EXPECT_EQ(DecodeRecord(Bytes(unterminated)).status().message(),
            "collective record's op has no terminating zero byte");
  CollectiveRecord control = AllReduceRecord();
  control.datatype[2] = '\x1b';
  EXPECT_EQ(DecodeRecord(Bytes(control)).status().message(),
            "collective record's datatype has byte 27 at 2");
  CollectiveRecord after_zero = AllReduceRecord();
  after_zero.protocol[10] = 'x';
  EXPECT_EQ(DecodeRecord(Bytes(after_zero)).status().message(),
            "collective record's protocol has byte 120 at 10");
  CollectiveRecord flagged = AllReduceRecord();
  flagged.header.flags = 2;
  EXPECT_EQ(DecodeRecord(Bytes(flagged)).status().message(), "collective record has flags 2");
  CollectiveRecord unknown_flag = AllReduceRecord();
  unknown_flag.collective_flags = 6;
  EXPECT_EQ(DecodeRecord(Bytes(unknown_flag)).status().message(),
            "collective record has collective flags 6");
  CollectiveRecord id_without_flag = AllReduceRecord();
  id_without_flag.collective_flags = 0;
  EXPECT_EQ(DecodeRecord(Bytes(id_without_flag)).status().message(),
            "collective record has launch correlation id 77 without its flag");
  auto short_bytes = Bytes(AllReduceRecord());
  short_bytes[2] = 112;
  short_bytes.resize(112);
  EXPECT_EQ(DecodeRecord(short_bytes).status().message(),
            "record kind 19 has size 112, expected 128");
}

TEST(RecordDecoderTest, DecodesBlobChunk) {
  const std::vector<uint8_t> bytes = testing::BlobChunk(5, 100, 96, "abcd");
  auto r = DecodeRecord(bytes);  // its name points into `bytes`
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kind, Kind::kBlobChunk);
  EXPECT_EQ(r->aux, 5u);
  EXPECT_EQ(r->blob.blob_class, static_cast<uint32_t>(BlobClass::kInstrumentationBuffer));
  EXPECT_EQ(r->blob.total_bytes, 100u);
  EXPECT_EQ(r->blob.offset, 96u);
  EXPECT_EQ(r->name, "abcd");
}

TEST(RecordDecoderTest, Malicious_BlobChunkWithBadFieldsIsRefused) {
  EXPECT_EQ(DecodeRecord(testing::BlobChunk(0, 4, 0, "abcd")).status().message(),
            "blob chunk record has flags 0 and blob id 0");
  EXPECT_EQ(DecodeRecord(testing::BlobChunk(5, 99, 96, "abcd")).status().message(),
            "blob chunk at 96 of 4 bytes in a blob of 99 (at most 268435456)");
  EXPECT_EQ(DecodeRecord(testing::BlobChunk(5, kMaxBlobBytes + 8, 0, "abcd")).status().message(),
            "blob chunk at 0 of 4 bytes in a blob of 268435464 (at most 268435456)");
  auto classless = testing::BlobChunk(5, 4, 0, "abcd");
  classless[8] = 0;
  EXPECT_EQ(DecodeRecord(classless).status().message(), "blob chunk has class 0");
  auto unknown_class = testing::BlobChunk(5, 4, 0, "abcd");
  unknown_class[8] = kMaxBlobClass + 1;
  EXPECT_EQ(DecodeRecord(unknown_class).status().message(), "blob chunk has class 3");
  auto long_chunk = testing::BlobChunk(5, 100, 0, "abcd");
  long_chunk[20] = 9;  // chunk_bytes 9 in a record with room for 8
  EXPECT_EQ(DecodeRecord(long_chunk).status().message(), "blob chunk of 9 bytes in a record of 32");
}

TEST(RecordDecoderTest, Malicious_GpuActivityWithBadFieldsIsRefused) {
  GpuActivityRecord nameless = MakeGpuActivity(Kind::kKernel, 0, 0);
  auto r = DecodeRecord(Bytes(nameless));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "GPU activity record kind 10 has name id 0");

  GpuActivityRecord copy = MakeGpuActivity(Kind::kMemcpy, kMaxCopyKind + 1, 0);
  EXPECT_FALSE(DecodeRecord(Bytes(copy)).ok());

  GpuActivityRecord named_memset = MakeGpuActivity(Kind::kMemset, 0, 0);
  named_memset.name_id = 1;
  EXPECT_FALSE(DecodeRecord(Bytes(named_memset)).ok());

  auto short_bytes = Bytes(MakeGpuActivity(Kind::kMemset, 0, 0));
  short_bytes[2] = 80;
  short_bytes.resize(80);
  EXPECT_FALSE(DecodeRecord(short_bytes).ok());
}

TEST(RecordDecoderTest, UnknownKindIsSkippableNotAnError) {
  auto bytes = Bytes(MakeTimed(Kind::kScopeEnter, 1, 1));
  bytes[0] = 200;
  auto r = DecodeRecord(bytes);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->unknown_kind);
  EXPECT_EQ(r->size_bytes, 16u);
}

TEST(RecordDecoderTest, Malicious_SizePastTheEnd) {
  auto bytes = Bytes(MakeTimed(Kind::kScopeEnter, 1, 1));
  bytes[2] = 32;
  auto r = DecodeRecord(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "record of 32 bytes overruns the 16 bytes left in the lane");
}

TEST(RecordDecoderTest, Malicious_ZeroOrUnalignedSize) {
  auto bytes = Bytes(MakeTimed(Kind::kScopeEnter, 1, 1));
  bytes[2] = 0;
  EXPECT_FALSE(DecodeRecord(bytes).ok());
  bytes[2] = 12;
  EXPECT_FALSE(DecodeRecord(bytes).ok());
}

TEST(RecordDecoderTest, Malicious_TruncatedHeader) {
  std::vector<uint8_t> bytes = {5, 0, 16};
  EXPECT_FALSE(DecodeRecord(bytes).ok());
}

TEST(RecordDecoderTest, Malicious_ZeroKind) {
  std::vector<uint8_t> bytes(16, 0);
  bytes[2] = 16;
  EXPECT_FALSE(DecodeRecord(bytes).ok());
}

TEST(RecordDecoderTest, Malicious_NameLengthDisagreesWithSize) {
  auto bytes = ContextDef(4, 1, "matmul");
  bytes[12] = 200;  // name_bytes
  auto r = DecodeRecord(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "record kind 3 has size 24, expected 216");
}

TEST(RecordDecoderTest, Malicious_HugeNameLength) {
  auto bytes = ContextDef(4, 1, "matmul");
  bytes[15] = 0x7f;
  EXPECT_FALSE(DecodeRecord(bytes).ok());
}

TEST(RecordDecoderTest, Malicious_RootRedefined) {
  EXPECT_FALSE(DecodeRecord(ContextDef(0, 0, "ROOT")).ok());
}

TEST(RecordDecoderTest, Malicious_WrongFixedSize) {
  auto bytes = Bytes(MakeInt64Metric(1, 1, 1));
  bytes[2] = 16;
  EXPECT_FALSE(DecodeRecord(bytes).ok());
}

TEST(RecordDecoderTest, Malicious_BadMetricType) {
  auto bytes = Bytes(MakeInt64Metric(1, 1, 1));
  bytes[1] = 3;
  auto r = DecodeRecord(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "metric has value type 3");
}

}  // namespace
}  // namespace protond::record
