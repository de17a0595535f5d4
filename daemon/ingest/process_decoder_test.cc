#include "daemon/ingest/process_decoder.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "common/record/cubin_blob.h"
#include "common/record/instrumentation_blob.h"
#include "common/record/test_records.h"
#include "common/tree/tree_depth.h"
#include "daemon/instrumentation/testing/test_buffer_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mlir-instrument/buffer/buffer_layout.h"

namespace protond::ingest {
namespace {

using record::Kind;

class LaneBytes {
 public:
  template <typename T>
  LaneBytes& Add(const T& record) {
    const auto* p = reinterpret_cast<const uint8_t*>(&record);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
    return *this;
  }
  LaneBytes& Context(uint32_t id, uint32_t parent, std::string_view name) {
    std::vector<uint8_t> out(record::NamedRecordBytes(name.size()));
    record::EncodeContextDef(id, parent, name, out.data());
    bytes_.insert(bytes_.end(), out.begin(), out.end());
    return *this;
  }
  LaneBytes& Name(uint32_t id, record::NameClass name_class, std::string_view name) {
    std::vector<uint8_t> out(record::NamedRecordBytes(name.size()));
    record::EncodeNameDef(id, name_class, name, out.data());
    bytes_.insert(bytes_.end(), out.begin(), out.end());
    return *this;
  }
  LaneBytes& Device(uint32_t id, const record::DeviceInfoRecord& device, std::string_view name) {
    std::vector<uint8_t> out(record::DeviceInfoRecordBytes(name.size()));
    record::EncodeDeviceInfo(id, device, name, out.data());
    bytes_.insert(bytes_.end(), out.begin(), out.end());
    return *this;
  }
  LaneBytes& Chunk(uint32_t blob_id, std::string_view blob, uint32_t offset, uint32_t bytes,
                   record::BlobClass blob_class = record::BlobClass::kInstrumentationBuffer) {
    const std::vector<uint8_t> out =
        record::testing::BlobChunk(blob_id, static_cast<uint32_t>(blob.size()), offset,
                                   blob.substr(offset, bytes), blob_class);
    bytes_.insert(bytes_.end(), out.begin(), out.end());
    return *this;
  }
  // Every chunk of `blob`, in order.
  LaneBytes& Blob(uint32_t blob_id, std::string_view blob,
                  record::BlobClass blob_class = record::BlobClass::kInstrumentationBuffer) {
    for (size_t offset = 0; offset < blob.size(); offset += record::kMaxBlobChunkBytes) {
      Chunk(blob_id, blob, static_cast<uint32_t>(offset), record::kMaxBlobChunkBytes, blob_class);
    }
    return *this;
  }
  LaneBytes& Vector(uint32_t context_id, uint32_t name_id, const std::vector<int64_t>& values,
                    record::NameClass type = record::NameClass::kInt64VectorMetric) {
    const std::vector<uint8_t> out =
        record::testing::VectorMetric(context_id, name_id, values, type);
    bytes_.insert(bytes_.end(), out.begin(), out.end());
    return *this;
  }
  LaneBytes& Notice(std::string_view text) {
    std::vector<uint8_t> out(record::NamedRecordBytes(text.size()));
    record::EncodeNotice(text, out.data());
    bytes_.insert(bytes_.end(), out.begin(), out.end());
    return *this;
  }
  std::span<const uint8_t> span() const { return bytes_; }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

class ProcessDecoderTest : public ::testing::Test {
 protected:
  absl::Status Decode(LaneCursor& cursor, std::span<const uint8_t> bytes) {
    return decoder_.DecodeLane(cursor, bytes, [this](uint64_t session) -> SessionSink* {
      return session == 5 ? &sink_ : nullptr;
    });
  }
  store::Batch Rows() {
    store::Batch batch;
    tree_.TakeChangedRows(batch);
    decoder_.TakeChangedRows(batch);
    return batch;
  }

  aggregate::CallTree tree_{5};
  uint64_t records_ = 0;
  std::vector<std::string> problems_;
  SessionSink sink_{&tree_, &records_, &problems_};
  ProcessDecoder decoder_{77};
};

TEST_F(ProcessDecoderTest, FoldsNestedScopesAndMetrics) {
  LaneBytes lane;
  lane.Add(record::MakeThreadBegin(1))
      .Add(record::MakeSessionBegin(5))
      .Context(1, 0, "outer")
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 100))
      .Context(2, 1, "inner")
      .Add(record::MakeTimed(Kind::kScopeEnter, 2, 110))
      .Name(1, record::NameClass::kInt64Metric, "flops")
      .Add(record::MakeInt64Metric(2, 1, 42))
      .Add(record::MakeTimed(Kind::kScopeExit, 2, 150))
      .Add(record::MakeTimed(Kind::kScopeExit, 1, 200));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(cursor.read_pos, lane.bytes().size());
  EXPECT_TRUE(cursor.stack.empty());
  EXPECT_EQ(records_, 5u);
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 2u);
  EXPECT_EQ(rows.nodes[0].name, "outer");
  EXPECT_EQ(rows.nodes[1].parent_id, rows.nodes[0].node_id);
  ASSERT_EQ(rows.node_stats.size(), 2u);
  ASSERT_EQ(rows.metrics.size(), 1u);
  EXPECT_EQ(rows.metrics[0].int_value, 42);
  EXPECT_EQ(rows.metrics[0].node_id, rows.nodes[1].node_id);
  EXPECT_EQ(rows.contexts.size(), 2u);
  EXPECT_EQ(rows.names.size(), 1u);
}

// A session stopped from outside stops inside some scope: that is not a lost exit. A thread that
// ends with scopes open is.
TEST_F(ProcessDecoderTest, ScopesOpenWhenTheirSessionStoppedAreNotCountedAsAbandoned) {
  LaneBytes lane;
  lane.Add(record::MakeThreadBegin(1))
      .Add(record::MakeSessionBegin(5))
      .Context(1, 0, "step")
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 100))
      .Add(record::MakeSessionBegin(5))  // the lane's next session (here the same id again)
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 300));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(decoder_.stats().abandoned_scopes, 0u);
  ASSERT_EQ(cursor.stack.size(), 1u);
  EXPECT_EQ(cursor.stack[0].enter_ns, 300u);
  LaneBytes next_thread;
  next_thread.Add(record::MakeThreadBegin(2));
  ASSERT_TRUE(Decode(cursor, next_thread.span()).ok());
  EXPECT_EQ(decoder_.stats().abandoned_scopes, 1u);
}

record::GpuActivityRecord Activity(Kind kind, uint32_t context, uint32_t name_id, uint64_t start,
                                   uint64_t end, uint64_t bytes = 0, uint8_t flags = 0) {
  record::GpuActivityRecord a = record::MakeGpuActivity(kind, flags, context);
  a.name_id = name_id;
  a.start_ns = start;
  a.end_ns = end;
  a.bytes = bytes;
  a.device_id = 1;
  return a;
}

// The metric `name` of node `node` in `rows`, or -1.
int64_t MetricOf(const store::Batch& rows, uint32_t node, std::string_view name) {
  for (const auto& m : rows.metrics) {
    if (m.node_id == node && m.name == name) return m.int_value;
  }
  return -1;
}

// A kernel launched from "step", and samples of two of its lines: the load line stalled on
// memory (plain and not-issued counts) and was selected once; the arithmetic line waited.
LaneBytes SampledKernel() {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(1, 0, "step")
      .Name(3, record::NameClass::kKernel, "chase")
      .Add(Activity(Kind::kKernel, 1, 3, 100, 150))
      .Name(4, record::NameClass::kSourceLine, "/src/k.cu:6@chase")
      .Name(5, record::NameClass::kSourceLine, "/src/k.cu:14@chase")
      .Name(6, record::NameClass::kStallReason, "smsp__pcsamp_warps_issue_stalled_long_scoreboard")
      .Name(7, record::NameClass::kStallReason,
            "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued")
      .Name(8, record::NameClass::kStallReason, "smsp__pcsamp_warps_issue_stalled_selected")
      .Name(9, record::NameClass::kStallReason, "smsp__pcsamp_warps_issue_stalled_wait")
      .Add(record::MakePcSample(1, 3, 4, 6, 0x140, 90))
      .Add(record::MakePcSample(1, 3, 4, 6, 0x150, 10))  // another instruction of the line
      .Add(record::MakePcSample(1, 3, 4, 7, 0x140, 60))
      .Add(record::MakePcSample(1, 3, 4, 8, 0x140, 1))
      .Add(record::MakePcSample(1, 3, 5, 9, 0x200, 7));
  return lane;
}

TEST_F(ProcessDecoderTest, PcSamplesBecomeInstructionsUnderLinesUnderTheirKernel) {
  sink_.pc_sampling = true;
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, SampledKernel().span()).ok());
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 7u);
  EXPECT_EQ(rows.nodes[1].name, "chase");
  const uint32_t kernel = rows.nodes[1].node_id;
  // The lines are frames under the kernel; each sampled instruction is under its line.
  EXPECT_EQ(rows.nodes[2].name, "/src/k.cu:6@chase");
  EXPECT_EQ(rows.nodes[2].parent_id, kernel);
  EXPECT_EQ(rows.nodes[2].kind, store::NodeKind::kFrame);
  const uint32_t load_line = rows.nodes[2].node_id;
  EXPECT_EQ(rows.nodes[3].name, "0x0140");
  EXPECT_EQ(rows.nodes[3].parent_id, load_line);
  EXPECT_EQ(rows.nodes[3].kind, store::NodeKind::kInstruction);
  EXPECT_EQ(rows.nodes[4].name, "0x0150");
  EXPECT_EQ(rows.nodes[4].parent_id, load_line);
  EXPECT_EQ(rows.nodes[5].name, "/src/k.cu:14@chase");
  EXPECT_EQ(rows.nodes[5].parent_id, kernel);
  EXPECT_EQ(rows.nodes[6].name, "0x0200");
  EXPECT_EQ(rows.nodes[6].kind, store::NodeKind::kInstruction);
  const uint32_t load = rows.nodes[3].node_id;
  EXPECT_EQ(MetricOf(rows, load, "num_samples"), 91);          // not-issued samples are a subset
  EXPECT_EQ(MetricOf(rows, load, "num_stalled_samples"), 90);  // selected is not a stall
  EXPECT_EQ(MetricOf(rows, load, "stalled_long_scoreboard"), 90);
  EXPECT_EQ(MetricOf(rows, load, "stalled_selected"), 1);
  EXPECT_EQ(MetricOf(rows, load, "stalled_long_scoreboard_not_issued"), -1);
  EXPECT_EQ(MetricOf(rows, rows.nodes[4].node_id, "stalled_long_scoreboard"), 10);
  EXPECT_EQ(MetricOf(rows, load_line, "num_samples"), -1);  // summed up only when viewed
  EXPECT_EQ(MetricOf(rows, rows.nodes[6].node_id, "stalled_wait"), 7);
  EXPECT_EQ(MetricOf(rows, kernel, "time (ns)"), 50);
  EXPECT_EQ(MetricOf(rows, kernel, "num_samples"), -1);  // summed up only when viewed
  EXPECT_EQ(decoder_.stats().undefined_reference, 0u);
}

// A cubin of 10,000 bytes (three chunks) with the ELF magic, as the shim sends it.
std::string CubinBlob(uint64_t crc) {
  std::string cubin =
      "\x7f"
      "ELF";
  cubin.resize(10000, 'c');
  return *record::EncodeCubinBlob(crc,
                                  {reinterpret_cast<const uint8_t*>(cubin.data()), cubin.size()});
}

TEST_F(ProcessDecoderTest, ACubinGoesToTheStoreAndItsInstructionsNameIt) {
  std::vector<store::CubinRow> cubins;
  sink_.pc_sampling = true;
  sink_.cubins = &cubins;
  LaneBytes lane = SampledKernel();
  lane.Blob(9, CubinBlob(0xc0b1), record::BlobClass::kCubin)
      .Add(record::MakePcSample(1, 3, 4, 6, 0x140, 5, 0xc0b1))
      .Add(record::MakePcSample(1, 3, 4, 6, 0x140, 2, 0xc0b2));  // another build of `chase`
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  ASSERT_EQ(cubins.size(), 1u);
  EXPECT_EQ(cubins[0].crc, 0xc0b1u);
  EXPECT_EQ(cubins[0].bytes.size(), 10000u);
  EXPECT_TRUE(
      cubins[0].bytes.starts_with("\x7f"
                                  "ELF"));
  const store::Batch rows = Rows();
  // 0x0140 three times under its line: without a cubin, and of each cubin.
  std::vector<uint64_t> crcs;
  for (const store::NodeRow& node : rows.nodes) {
    if (node.name == "0x0140") crcs.push_back(node.cubin_crc);
  }
  EXPECT_THAT(crcs, ::testing::ElementsAre(0u, 0xc0b1u, 0xc0b2u));
  EXPECT_TRUE(problems_.empty());
}

TEST_F(ProcessDecoderTest, CubinsAreForPcSamplingSessionsAndBadOnesAreSaid) {
  std::vector<store::CubinRow> cubins;
  sink_.cubins = &cubins;
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5)).Blob(9, CubinBlob(0xc0b1), record::BlobClass::kCubin);
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_TRUE(cubins.empty());  // not a pcsampling session

  sink_.pc_sampling = true;
  std::string not_elf = CubinBlob(0xc0b1);
  not_elf[sizeof(record::CubinBlobHeader)] = 'X';
  LaneBytes bad;
  bad.Blob(10, not_elf, record::BlobClass::kCubin);
  ASSERT_TRUE(Decode(cursor, bad.span()).ok());
  EXPECT_TRUE(cubins.empty());
  EXPECT_THAT(problems_,
              ::testing::ElementsAre("cubin dropped: cubin blob does not hold an ELF file"));

  // A lost middle chunk: the rest of the cubin is skipped, and the session says why.
  const std::string blob = CubinBlob(0xc0b3);
  LaneBytes torn;
  torn.Chunk(11, blob, 0, record::kMaxBlobChunkBytes, record::BlobClass::kCubin)
      .Chunk(11, blob, 2 * record::kMaxBlobChunkBytes, record::kMaxBlobChunkBytes,
             record::BlobClass::kCubin);
  ASSERT_TRUE(Decode(cursor, torn.span()).ok());
  EXPECT_TRUE(cubins.empty());
  EXPECT_THAT(problems_[1], ::testing::StartsWith("a cubin lost a part in a full lane"));
}

// After a daemon restart the names come from the store: each keeps its class's meaning (a kernel
// name verbatim, a stall reason as Proton's metric), so samples after the restart count alike.
TEST_F(ProcessDecoderTest, AfterARestartStoredNamesKeepTheirClass) {
  sink_.pc_sampling = true;
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, SampledKernel().span()).ok());
  const store::Batch before = Rows();

  aggregate::CallTree tree(5);
  SessionSink sink{&tree, &records_, &problems_};
  sink.pc_sampling = true;
  ProcessDecoder restarted(77);
  restarted.Load(before.contexts, before.names);
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5)).Add(record::MakePcSample(1, 3, 4, 6, 0x140, 5));
  LaneCursor next;
  ASSERT_TRUE(restarted
                  .DecodeLane(next, lane.span(),
                              [&](uint64_t session) { return session == 5 ? &sink : nullptr; })
                  .ok());
  EXPECT_EQ(restarted.stats().undefined_reference, 0u);
  store::Batch after;
  tree.TakeChangedRows(after);
  ASSERT_EQ(after.nodes.size(), 4u);  // step, its kernel, the load line, its instruction
  EXPECT_EQ(after.nodes[2].name, "/src/k.cu:6@chase");
  EXPECT_EQ(MetricOf(after, after.nodes[3].node_id, "stalled_long_scoreboard"), 5);
  EXPECT_EQ(MetricOf(after, after.nodes[3].node_id, "num_samples"), 5);
}

TEST_F(ProcessDecoderTest, PcSamplesOfASessionThatDidNotAskForThemAreLeftOut) {
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, SampledKernel().span()).ok());
  const store::Batch rows = Rows();
  EXPECT_EQ(rows.nodes.size(), 2u);  // step and its kernel
  for (const auto& metric : rows.metrics) EXPECT_NE(metric.name, "num_samples");
}

TEST_F(ProcessDecoderTest, PcSamplesNamingTheWrongClassOfNameAreCounted) {
  sink_.pc_sampling = true;
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Name(3, record::NameClass::kKernel, "chase")
      .Name(4, record::NameClass::kSourceLine, "/src/k.cu:6@chase")
      .Add(record::MakePcSample(0, 3, 4, /*a line, not a reason=*/4, 0, 1))
      .Add(record::MakePcSample(0, /*a line, not a kernel=*/4, 4, 4, 0, 1))
      .Add(record::MakePcSample(9, 3, 4, 4, 0, 1));  // undefined context
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(decoder_.stats().undefined_reference, 3u);
  EXPECT_TRUE(Rows().nodes.empty());
}

// The buffer of a kernel of 40 CTAs with one warp each, in Proton's circular layout: CTA 0's warp
// ran scope 0 ("loop") from cycle 100 to 350 on SM 7; the other CTAs recorded nothing. 5 KiB, so
// its blob takes two chunks. The blocks' init times are 5 ms; the shim knew the kernel's launch
// when `launch` is given.
std::string InstrumentedKernelBlob(uint32_t context_id, uint32_t kernel_name_id,
                                   std::optional<uint32_t> launch = std::nullopt) {
  constexpr uint32_t kBlockBytes = 128;  // align128(40 + 4 * 1 warp + 16 data bytes)
  std::vector<uint8_t> buffer(40 * kBlockBytes);
  for (uint32_t block = 0; block < 40; ++block) {
    uint8_t* p = buffer.data() + block * kBlockBytes;
    const uint32_t header[5] = {instrumentation::kProfiledPreamble, block, 7, 16, 5'000'000};
    std::memcpy(p, header, sizeof(header));
    const uint32_t write_index = block == 0 ? 4 : 0;  // two records, in words
    std::memcpy(p + 40, &write_index, sizeof(write_index));
  }
  instrumentation::EncodeRecord({false, false, 0, 100}, buffer.data() + 44);
  instrumentation::EncodeRecord({true, false, 0, 350}, buffer.data() + 52);
  record::InstrumentationBufferHeader header{};
  header.context_id = context_id;
  header.kernel_name_id = kernel_name_id;
  header.layout = static_cast<uint32_t>(record::InstrumentationLayout::kCircular);
  header.block_bytes = kBlockBytes;
  header.num_warps = 1;
  if (launch) {
    header.flags = record::kLaunchKnown;
    header.launch_correlation_id = *launch;
  }
  const std::vector<std::string_view> scopes = {"loop"};
  return *record::EncodeInstrumentationBlob(header, {}, scopes, buffer);
}

TEST_F(ProcessDecoderTest, InstrumentationBufferBecomesScopesUnderItsKernel) {
  const std::string blob = InstrumentedKernelBlob(1, 3);
  ASSERT_GT(blob.size(), record::kMaxBlobChunkBytes);
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(1, 0, "step")
      .Name(3, record::NameClass::kKernel, "kern")
      .Add(Activity(Kind::kKernel, 1, 3, 100, 150))
      .Blob(9, blob);
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 3u);
  EXPECT_EQ(rows.nodes[1].name, "kern");  // the kernel's own node, CUPTI's time on it
  EXPECT_EQ(rows.nodes[2].name, "loop");
  EXPECT_EQ(rows.nodes[2].parent_id, rows.nodes[1].node_id);
  const uint32_t loop = rows.nodes[2].node_id;
  EXPECT_EQ(MetricOf(rows, loop, "cycles"), 250);
  EXPECT_EQ(MetricOf(rows, rows.nodes[1].node_id, "time (ns)"), 50);
  EXPECT_TRUE(problems_.empty()) << problems_[0];
  EXPECT_EQ(decoder_.stats().incomplete_blobs, 0u);
}

// Triton 3.6's own host buffer of a kernel of 4 CTAs x 4 warps (daemon/instrumentation/testdata,
// written on the H100), passed on as it is: the tree gets Proton's numbers for it.
TEST_F(ProcessDecoderTest, TritonHostBufferGetsProtonsNumbers) {
  std::ifstream in(std::string(PROTOND_INSTRUMENTATION_TESTDATA) + "/triton36_loop_host_buffer.bin",
                   std::ios::binary);
  const std::vector<uint8_t> host((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  ASSERT_FALSE(host.empty());
  record::InstrumentationBufferHeader header{};
  header.context_id = 1;
  header.kernel_name_id = 3;
  header.layout = static_cast<uint32_t>(record::InstrumentationLayout::kTritonHostBuffer);
  const std::vector<std::string_view> scopes = {"outer", "load"};
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(1, 0, "step")
      .Name(3, record::NameClass::kKernel, "kern")
      .Blob(9, *record::EncodeInstrumentationBlob(header, {}, scopes, host));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 4u);
  EXPECT_EQ(rows.nodes[2].name, "outer");
  EXPECT_EQ(rows.nodes[3].name, "load");
  EXPECT_EQ(rows.nodes[3].parent_id, rows.nodes[2].node_id);  // nested, as Proton shows it
  // Proton wrote: outer {cycles 15921, normalized_cycles 995.0625}, load {1622, 101.375}.
  EXPECT_EQ(MetricOf(rows, rows.nodes[2].node_id, "cycles"), 15921);
  EXPECT_EQ(MetricOf(rows, rows.nodes[3].node_id, "cycles"), 1622);
  EXPECT_TRUE(problems_.empty()) << problems_[0];
}

TEST_F(ProcessDecoderTest, SoftProblemsOfAKernelsLaunchesAddUpInOneLine) {
  // Each launch: one CTA of one warp whose "loop" started and never ended.
  instrumentation::internal::TestBufferBuilder buffer(1, 1, 16);
  buffer.Start(0, 0, 0, 100);
  record::InstrumentationBufferHeader header{};
  header.context_id = 1;
  header.kernel_name_id = 3;
  header.layout = static_cast<uint32_t>(record::InstrumentationLayout::kCircular);
  header.block_bytes = buffer.block_bytes();
  header.num_warps = 1;
  const std::vector<std::string_view> scopes = {"loop"};
  const std::string blob = *record::EncodeInstrumentationBlob(header, {}, scopes, buffer.bytes());
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(1, 0, "step")
      .Name(3, record::NameClass::kKernel, "kern")
      .Blob(9, blob)
      .Blob(10, blob)
      .Blob(11, blob);
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_THAT(problems_, ::testing::ElementsAre(
                             "in-kernel scopes of kern, 3 launches: 3 scopes started without end"));
}

TEST_F(ProcessDecoderTest, Malicious_ABlobMissingAChunkIsDroppedAndCounted) {
  const std::string blob = InstrumentedKernelBlob(1, 3);
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(1, 0, "step")
      .Name(3, record::NameClass::kKernel, "kern")
      .Chunk(8, blob, 0, 1024)
      .Chunk(8, blob, 2048, 1024)  // the chunk at 1024 was lost
      .Chunk(8, blob, 3072, 4096)
      .Chunk(10, blob, 4096, 4096)  // a blob whose start was lost
      .Blob(11, blob);
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(decoder_.stats().incomplete_blobs, 2u);
  EXPECT_THAT(problems_, ::testing::ElementsAre(::testing::HasSubstr("lost a part")));
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 3u);  // blob 11 made it
  EXPECT_EQ(MetricOf(rows, rows.nodes[2].node_id, "cycles"), 250);
}

TEST_F(ProcessDecoderTest, GpuActivityBecomesLeavesOfTheLaunchContext) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(1, 0, "step")
      .Name(3, record::NameClass::kKernel, "_Z6matmulPf (pty)")
      .Add(Activity(Kind::kKernel, 1, 3, 100, 150))
      .Add(Activity(Kind::kKernel, 1, 3, 200, 230))
      .Add(Activity(Kind::kMemcpy, 1, 0, 10, 20, 4096,
                    static_cast<uint8_t>(record::CopyKind::kHostToDevice)))
      .Add(Activity(Kind::kMemset, 0, 0, 30, 35, 64));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(records_, 4u);
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 4u);
  EXPECT_EQ(rows.nodes[0].name, "step");
  EXPECT_EQ(rows.nodes[1].name, "_Z6matmulPf (pty)");  // kernel names are not metric names
  EXPECT_EQ(rows.nodes[1].parent_id, rows.nodes[0].node_id);
  EXPECT_EQ(rows.nodes[2].name, "[CUDA memcpy Host-to-Device]");
  EXPECT_EQ(rows.nodes[3].name, "[CUDA memset]");
  EXPECT_EQ(rows.nodes[3].parent_id, aggregate::kRootNodeId);
  const uint32_t kernel = rows.nodes[1].node_id;
  EXPECT_EQ(MetricOf(rows, kernel, "time (ns)"), 80);
  EXPECT_EQ(MetricOf(rows, kernel, "device_id"), 1);
  EXPECT_EQ(MetricOf(rows, kernel, "bytes"), -1);
  EXPECT_EQ(MetricOf(rows, rows.nodes[2].node_id, "bytes"), 4096);
  EXPECT_EQ(MetricOf(rows, rows.nodes[3].node_id, "time (ns)"), 5);
  for (const auto& stats : rows.node_stats) {
    EXPECT_EQ(stats.count, stats.node_id == kernel ? 2u : 1u);
    EXPECT_EQ(stats.duration_ns_sum, 0u);  // GPU time is not CPU time
  }
}

TEST_F(ProcessDecoderTest, NoticesBecomeSessionProblemsOnce) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Notice("CUPTI is held by another tool")
      .Notice("CUPTI is held by another tool");
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(problems_, std::vector<std::string>{"CUPTI is held by another tool"});
}

// Devices are facts about the process: kept whatever session the lane is in, not counted as the
// session's records, and stored again only when they change.
TEST_F(ProcessDecoderTest, DeviceInfoLandsInTheBatchOncePerChange) {
  using record::testing::H100;
  record::DeviceInfoRecord slower = H100();
  slower.clock_rate_khz = 1755000;
  LaneBytes lane;
  lane.Device(0, H100(), "NVIDIA H100 80GB HBM3")  // before any session
      .Add(record::MakeSessionBegin(5))
      .Device(1, H100(), "NVIDIA H100 80GB HBM3")
      .Add(record::MakeSessionBegin(9))  // a session this process may not record into
      .Device(2, H100(), "NVIDIA H100 80GB HBM3");
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(records_, 0u);
  EXPECT_EQ(decoder_.stats().outside_session, 1u);  // the refused SessionBegin alone
  const store::DeviceRow h100 = {
      77, 0, "NVIDIA H100 80GB HBM3", 90, 132, 1980000, 2619000, 5120, 85029158912};
  store::DeviceRow second = h100;
  second.device_id = 1;
  store::DeviceRow third = h100;
  third.device_id = 2;
  EXPECT_EQ(Rows().devices, (std::vector<store::DeviceRow>{h100, second, third}));

  LaneBytes again;
  again.Device(0, H100(), "NVIDIA H100 80GB HBM3").Device(1, slower, "NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(Decode(cursor, again.span()).ok());
  second.clock_rate_khz = 1755000;
  EXPECT_EQ(Rows().devices, std::vector<store::DeviceRow>{second});
}

TEST_F(ProcessDecoderTest, Malicious_GpuActivityWithUndefinedOrWrongNamesIsCounted) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Name(2, record::NameClass::kInt64Metric, "flops")
      .Add(Activity(Kind::kKernel, 0, 9, 1, 2))   // undefined name
      .Add(Activity(Kind::kKernel, 0, 2, 1, 2))   // a metric name, not a kernel name
      .Add(Activity(Kind::kKernel, 4, 2, 1, 2))   // undefined context
      .Add(Activity(Kind::kMemset, 0, 0, 9, 3));  // ends before it starts
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(decoder_.stats().undefined_reference, 3u);
  EXPECT_EQ(decoder_.stats().reversed_activity, 1u);
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 1u);
  EXPECT_EQ(MetricOf(rows, rows.nodes[0].node_id, "time (ns)"), 0);
}

TEST_F(ProcessDecoderTest, Malicious_ForeignSessionIsDiscardedAndCounted) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(99))
      .Context(1, 0, "x")
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 1))
      .Add(record::MakeTimed(Kind::kScopeExit, 1, 2));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(records_, 0u);
  EXPECT_EQ(decoder_.stats().outside_session, 3u);
  EXPECT_TRUE(Rows().node_stats.empty());
}

TEST_F(ProcessDecoderTest, Malicious_UndefinedContextAndUnmatchedExitAreCounted) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Add(record::MakeTimed(Kind::kScopeExit, 3, 2))
      .Add(record::MakeTimed(Kind::kScopeEnter, 4, 1))
      .Add(record::MakeTimed(Kind::kScopeExit, 4, 2));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(decoder_.stats().unmatched_exit, 1u);
  EXPECT_EQ(decoder_.stats().undefined_reference, 1u);
}

// A context is defined after its parent, as the shim writes them: a definition naming a parent
// not defined yet is refused, so no cycle can form.
TEST_F(ProcessDecoderTest, Malicious_ContextCycleIsRefused) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(1, 2, "a")
      .Context(2, 1, "b")
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 1))
      .Add(record::MakeTimed(Kind::kScopeExit, 1, 2));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(decoder_.stats().undefined_reference, 3u);  // both definitions, and the exit
  EXPECT_TRUE(Rows().contexts.empty());
}

// Found while fixing issue 27's deep input: each session's context cache is a vector indexed by
// context id, so a definition with an id near 2^32 made protond allocate 16 GB at the first
// record in it. The shim hands out ids from 1 up; one past kMaxContextId is refused and counted.
TEST_F(ProcessDecoderTest, Malicious_AContextIdPastTheLimitIsRefused) {
  constexpr uint32_t kHuge = 0xfffffff0;
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(kHuge, 0, "far")
      .Context(kMaxContextId, 0, "just past")
      .Context(kMaxContextId - 1, 0, "last")
      .Add(record::MakeTimed(Kind::kScopeEnter, kHuge, 1))
      .Add(record::MakeTimed(Kind::kScopeExit, kHuge, 2))
      .Add(record::MakeTimed(Kind::kScopeEnter, kMaxContextId - 1, 3))
      .Add(record::MakeTimed(Kind::kScopeExit, kMaxContextId - 1, 4));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(decoder_.stats().context_id_past_limit, 2u);
  EXPECT_EQ(decoder_.stats().undefined_reference, 1u);  // the scope in "far"
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.contexts.size(), 1u);
  EXPECT_EQ(rows.contexts[0].context_id, kMaxContextId - 1);
  ASSERT_EQ(rows.nodes.size(), 1u);
  EXPECT_EQ(rows.nodes[0].name, "last");
}

// What a shim without the depth limit wrote, or a hostile writer: the tree keeps kMaxTreeDepth
// levels and what lies deeper is counted and said. Before (issue 27): the records past 4096
// levels were counted as "naming an undefined id", after a walk of 4096 contexts each, which
// for 100,000 nested scopes held the daemon (and every client) for 9.5 s.
TEST_F(ProcessDecoderTest, ScopesNestedDeeperThanTheLimitAreLeftOutAndCounted) {
  constexpr uint32_t kDeepest = kMaxTreeDepth + 3;
  LaneBytes lane;
  lane.Add(record::MakeThreadBegin(1))
      .Add(record::MakeSessionBegin(5))
      .Name(1, record::NameClass::kKernel, "k")
      .Name(2, record::NameClass::kInt64Metric, "m");
  for (uint32_t id = 1; id <= kDeepest; ++id) {
    lane.Context(id, id - 1, "s").Add(record::MakeTimed(Kind::kScopeEnter, id, id));
  }
  lane.Add(record::MakeInt64Metric(kDeepest, 2, 1))
      .Add(Activity(Kind::kKernel, kMaxTreeDepth, 1, 10, 20))       // its node: 4097 levels down
      .Add(Activity(Kind::kKernel, kMaxTreeDepth - 1, 1, 10, 20));  // 4096: kept
  for (uint32_t id = kDeepest; id >= 1; --id) {
    lane.Add(record::MakeTimed(Kind::kScopeExit, id, 2 * kDeepest - id));
  }
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_TRUE(cursor.stack.empty());
  EXPECT_EQ(decoder_.stats().too_deep, 8u);  // 3 enters, 3 exits, the metric, a kernel
  EXPECT_EQ(decoder_.stats().undefined_reference, 0u);
  EXPECT_EQ(decoder_.stats().unmatched_exit, 0u);
  EXPECT_EQ(decoder_.stats().Summary(), "8 nested deeper than 4096 levels");
  const store::Batch rows = Rows();
  EXPECT_EQ(rows.nodes.size(), kMaxTreeDepth + 1u);  // the scopes, and the one kernel
  EXPECT_EQ(rows.node_stats.size(), kMaxTreeDepth + 1u);
  EXPECT_EQ(rows.metrics.size(), 2u);  // the kernel's time and device
  EXPECT_EQ(rows.contexts.size(), kDeepest);
}

// A lane's open scopes are at most kMaxTreeDepth deep, whatever a writer enters: the stack is
// stored with every commit.
TEST_F(ProcessDecoderTest, Malicious_EntersPastTheLimitAreNotKept) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5)).Context(1, 0, "s");
  for (int i = 0; i < kMaxTreeDepth + 10; ++i) lane.Add(record::MakeTimed(Kind::kScopeEnter, 1, i));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(cursor.stack.size(), static_cast<size_t>(kMaxTreeDepth));
  EXPECT_EQ(decoder_.stats().too_deep, 10u);
}

// Contexts come back from the store in id order, where a parent may follow its child; one whose
// parent is not among them is left out, as a definition naming an undefined parent is.
TEST_F(ProcessDecoderTest, AfterARestartStoredContextsInAnyOrderAreFound) {
  ProcessDecoder restarted(77);
  restarted.Load({{77, 2, 9, "b"}, {77, 3, 42, "orphan"}, {77, 9, 0, "a"}}, {});
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Add(record::MakeTimed(Kind::kScopeEnter, 2, 1))
      .Add(record::MakeTimed(Kind::kScopeExit, 2, 2))
      .Add(record::MakeTimed(Kind::kScopeEnter, 3, 3))
      .Add(record::MakeTimed(Kind::kScopeExit, 3, 4));
  LaneCursor cursor;
  ASSERT_TRUE(restarted
                  .DecodeLane(cursor, lane.span(),
                              [this](uint64_t session) { return session == 5 ? &sink_ : nullptr; })
                  .ok());
  EXPECT_EQ(restarted.stats().undefined_reference, 1u);
  store::Batch rows;
  tree_.TakeChangedRows(rows);
  ASSERT_EQ(rows.nodes.size(), 2u);
  EXPECT_EQ(rows.nodes[0].name, "a");
  EXPECT_EQ(rows.nodes[1].name, "b");
}

TEST_F(ProcessDecoderTest, Malicious_GarbageStopsAtTheBadRecord) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5));
  lane.bytes().insert(lane.bytes().end(), {0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  LaneCursor cursor;
  const absl::Status status = Decode(cursor, lane.span());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "at position 16: record kind 0 (zeroed or overwritten memory)");
  EXPECT_EQ(cursor.read_pos, 16u);
}

TEST_F(ProcessDecoderTest, MetricTypeChangeIsReportedAsProblem) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Name(1, record::NameClass::kInt64Metric, "a")
      .Add(record::MakeInt64Metric(0, 1, 1))
      .Add(record::MakeDoubleMetric(0, 1, 1.0));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  ASSERT_EQ(problems_.size(), 1u);
  EXPECT_EQ(problems_[0],
            "Metric value type mismatch for valueId 0 (a): current=int64_t, new=double");
}

TEST_F(ProcessDecoderTest, VectorMetricsSumElementWiseAndSizeChangesAreProblems) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(1, 0, "s")
      .Name(1, record::NameClass::kInt64VectorMetric, "v")
      .Vector(1, 1, {1, 2, 3})
      .Vector(1, 1, {1, 2, 3})
      .Vector(1, 1, {1, 2})  // a shim refuses this; another process's lane may not
      // A vector record naming a scalar name, or a name of the other element type: not its name.
      .Name(2, record::NameClass::kInt64Metric, "n")
      .Vector(1, 2, {1})
      .Vector(1, 1, {1, 2, 3}, record::NameClass::kDoubleVectorMetric);
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_EQ(decoder_.stats().undefined_reference, 2u);
  ASSERT_EQ(problems_.size(), 1u);
  EXPECT_EQ(problems_[0], "size mismatch for metric v: current=3, new=2");
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.metrics.size(), 1u);
  EXPECT_EQ(rows.metrics[0].vector_bits, (std::vector<uint64_t>{2, 4, 6}));
  EXPECT_EQ(rows.metrics[0].node_id, rows.nodes[0].node_id);
  ASSERT_EQ(rows.names.size(), 2u);
  EXPECT_EQ(rows.names[0].name_class, static_cast<int>(record::NameClass::kInt64VectorMetric));
}

TEST_F(ProcessDecoderTest, TraceSessionsGetEachScopeAndActivityAsAnEvent) {
  std::vector<store::ScopeEventRow> scope_events;
  std::vector<store::GpuEventRow> gpu_events;
  sink_.scope_events = &scope_events;
  sink_.gpu_events = &gpu_events;
  record::GpuActivityRecord kernel = Activity(Kind::kKernel, 2, 3, 130, 170);
  kernel.stream_id = 7;
  kernel.correlation_id = 99;
  LaneBytes lane;
  lane.Add(record::MakeThreadBegin(4242))                 // at 0
      .Add(record::MakeSessionBegin(5))                   // 8
      .Context(1, 0, "outer")                             // 24
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 100))  // 48
      .Context(2, 1, "inner")                             // 64
      .Add(record::MakeTimed(Kind::kScopeEnter, 2, 110))  // 88
      .Name(3, record::NameClass::kKernel, "k")           // 104
      .Add(kernel)                                        // 128
      .Add(record::MakeTimed(Kind::kScopeExit, 2, 150))   // 216
      .Add(record::MakeTimed(Kind::kScopeExit, 1, 200));  // 232
  LaneCursor cursor;
  cursor.lane = 3;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 3u);  // outer, inner, k
  const uint32_t outer = rows.nodes[0].node_id;
  const uint32_t inner = rows.nodes[1].node_id;
  const uint32_t k = rows.nodes[2].node_id;
  EXPECT_EQ(rows.nodes[2].name, "k");
  EXPECT_EQ(rows.nodes[2].parent_id, inner);
  EXPECT_THAT(scope_events,
              ::testing::ElementsAre(store::ScopeEventRow{5, 77, 3, 216, 4242, inner, 110, 150},
                                     store::ScopeEventRow{5, 77, 3, 232, 4242, outer, 100, 200}));
  EXPECT_THAT(gpu_events,
              ::testing::ElementsAre(store::GpuEventRow{5, 77, 3, 128, k, 10, 130, 170, 1, 7, 99}));
  EXPECT_EQ(rows.node_stats.size(), 3u);  // the aggregates are kept as for any session
}

// A shim on the TSC: timestamps in ticks, converted with its clock pairs to the CLOCK_MONOTONIC
// ns of everything else (here a 2.5 GHz TSC; the GPU's times are ns already).
TEST_F(ProcessDecoderTest, TscTimestampsAreConvertedWithTheProcesssClockPairs) {
  decoder_.SetHostTsc({{10'000, 2'000'000'000}, 2.5});  // protond's own reading agrees
  std::vector<store::ScopeEventRow> scope_events;
  sink_.scope_events = &scope_events;
  constexpr uint8_t kTsc = record::kTimestampTsc;
  LaneBytes lane;
  lane.Add(record::MakeThreadBegin(4242))                              // at 0
      .Add(record::MakeSessionBegin(5))                                // 8
      .Add(record::MakeClockSync(10'000, 2'000'000'000))               // 24
      .Context(1, 0, "outer")                                          // 48
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 10'250, kTsc))      // 72: 2 s + 100 ns
      .Add(record::MakeClockSync(25'010'000, 2'010'000'000))           // 88: 10 ms later
      .Add(record::MakeTimed(Kind::kScopeExit, 1, 25'010'250, kTsc))   // 112
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 25'012'750, kTsc))  // 128: past the last pair
      .Add(record::MakeTimed(Kind::kScopeExit, 1, 25'015'250, kTsc));  // 144
  LaneCursor cursor;
  cursor.lane = 2;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 1u);
  const uint32_t outer = rows.nodes[0].node_id;
  // The first enter past the one pair known then, its exit between the pairs, the second scope
  // past the last pair: protond's rate extrapolates.
  EXPECT_THAT(scope_events,
              ::testing::ElementsAre(
                  store::ScopeEventRow{5, 77, 2, 112, 4242, outer, 2'000'000'100, 2'010'000'100},
                  store::ScopeEventRow{5, 77, 2, 144, 4242, outer, 2'010'001'100, 2'010'002'100}));
  ASSERT_EQ(rows.node_stats.size(), 1u);
  EXPECT_EQ(rows.node_stats[0].duration_ns_sum, 10'000'000u + 1'000u);
  EXPECT_EQ(records_, 4u);  // clock pairs are not records
  EXPECT_EQ(decoder_.ClockSummary(), "");
}

// An AllGather of 256 bf16 per rank on rank 1 of 2, called from context `context_id`, its times in
// TSC ticks.
record::CollectiveRecord TscAllGather(uint32_t context_id, uint64_t start, uint64_t end) {
  return record::testing::Collective(context_id, record::kTimestampTsc,
                                     {start, end, 0xabcdef0123456789, 41, 256, 1, 2, "AllGather",
                                      "ncclBfloat16", "RING", "LL128"});
}

class ProcessDecoderCollectiveTest : public ProcessDecoderTest,
                                     public ::testing::WithParamInterface<bool> {};

// Every session takes collective calls, a tree session as a trace session: their times converted
// from the TSC as a scope's, under their context's node, keyed by the record's lane position.
TEST_P(ProcessDecoderCollectiveTest, CollectiveCallsBecomeRowsWithTheirTimesConverted) {
  const bool trace = GetParam();
  std::vector<store::ScopeEventRow> scope_events;
  std::vector<store::CollectiveEventRow> collective_events;
  if (trace) sink_.scope_events = &scope_events;
  sink_.collective_events = &collective_events;
  decoder_.SetHostTsc({{10'000, 2'000'000'000}, 2.5});
  LaneBytes lane;
  lane.Add(record::MakeThreadBegin(4242))                 // at 0
      .Add(record::MakeSessionBegin(5))                   // 8
      .Add(record::MakeClockSync(10'000, 2'000'000'000))  // 24
      .Context(1, 0, "step")                              // 48
      .Add(TscAllGather(1, 10'250, 35'250))               // 72: +100 ns, +10 us
      .Add(TscAllGather(0, 10'000, 10'000));              // 200: at ROOT
  LaneCursor cursor;
  cursor.lane = 3;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 1u);
  const uint32_t step = rows.nodes[0].node_id;
  const store::CollectiveEventRow first{
      5,  77,  3, 72, step,        2'000'000'100,  2'000'010'100, 0xabcdef0123456789,
      41, 256, 1, 2,  "AllGather", "ncclBfloat16", "RING",        "LL128",
      0};
  store::CollectiveEventRow second = first;
  second.record_pos = 200;
  second.node_id = aggregate::kRootNodeId;
  second.start_ns = second.end_ns = 2'000'000'000;
  EXPECT_THAT(collective_events, ::testing::ElementsAre(first, second));
  EXPECT_TRUE(scope_events.empty());
  EXPECT_EQ(records_, 2u);  // definitions and clock pairs are not records
  EXPECT_EQ(decoder_.stats().Summary(), "");
}

INSTANTIATE_TEST_SUITE_P(TreeAndTrace, ProcessDecoderCollectiveTest, ::testing::Bool());

// A call names its kernel by CUPTI's correlation id; NCCL's kernels (and no other) become rows
// with their GPU times, in a tree session as in a trace session.
TEST_P(ProcessDecoderCollectiveTest, CallsNameTheirKernelAndNcclKernelsKeepTheirTimes) {
  std::vector<store::GpuEventRow> gpu_events;
  std::vector<store::CollectiveEventRow> collective_events;
  std::vector<store::CollectiveKernelRow> collective_kernels;
  if (GetParam()) sink_.gpu_events = &gpu_events;
  sink_.collective_events = &collective_events;
  sink_.collective_kernels = &collective_kernels;
  record::CollectiveRecord call = record::testing::Collective(0, 0, {1'000, 1'200, 7, 3});
  call.launch_correlation_id = 91;
  call.collective_flags = record::kCollectiveLaunchKnown;
  record::GpuActivityRecord nccl = Activity(Kind::kKernel, 0, 3, 1'100, 9'000);
  nccl.correlation_id = 91;
  record::GpuActivityRecord other = Activity(Kind::kKernel, 0, 4, 900, 1'000);
  other.correlation_id = 90;
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Name(3, record::NameClass::kKernel,
            "_Z28ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgs)")
      .Name(4, record::NameClass::kKernel, "_Z6matmulPf")
      .Add(call)
      .Add(other)
      .Add(nccl);
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  ASSERT_EQ(collective_events.size(), 1u);
  EXPECT_EQ(collective_events[0].launch_correlation_id, 91u);
  EXPECT_THAT(collective_kernels,
              ::testing::ElementsAre(store::CollectiveKernelRow{5, 77, 91, 1, 1'100, 9'000}));
}

TEST_F(ProcessDecoderTest, Malicious_ACollectiveOfAnUndefinedContextIsCountedNotStored) {
  std::vector<store::CollectiveEventRow> collective_events;
  sink_.collective_events = &collective_events;
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5)).Add(TscAllGather(9, 1, 2));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  EXPECT_TRUE(collective_events.empty());
  EXPECT_EQ(decoder_.stats().undefined_reference, 1u);
}

// A format-7 region (a shim before the TSC): timestamps are ns, with no clock pair anywhere.
TEST_F(ProcessDecoderTest, NanosecondTimestampsNeedNoClockPairs) {
  LaneBytes lane;
  lane.Add(record::MakeThreadBegin(1))
      .Add(record::MakeSessionBegin(5))
      .Context(1, 0, "step")
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 1'000))
      .Add(record::MakeTimed(Kind::kScopeExit, 1, 4'500));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.node_stats.size(), 1u);
  EXPECT_EQ(rows.node_stats[0].duration_ns_sum, 3'500u);
  EXPECT_EQ(decoder_.ClockSummary(), "");
}

TEST_F(ProcessDecoderTest, Malicious_BadClockPairsAreSaidAndTheScopesStillCounted) {
  constexpr uint8_t kTsc = record::kTimestampTsc;
  LaneBytes lane;
  lane.Add(record::MakeThreadBegin(1))
      .Add(record::MakeSessionBegin(5))
      .Add(record::MakeClockSync(10'000, 2'000'000'000))
      .Add(record::MakeClockSync(20'000, 1'000'000'000))  // later TSC, earlier time: ignored
      .Context(1, 0, "step")
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 10'000, kTsc))
      .Add(record::MakeTimed(Kind::kScopeExit, 1, 30'000, kTsc));  // one pair, no rate
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.node_stats.size(), 1u);
  EXPECT_EQ(rows.node_stats[0].count, 1u);
  EXPECT_EQ(rows.node_stats[0].duration_ns_sum, 0u);  // its end has no time: 0, and said so
  EXPECT_EQ(decoder_.ClockSummary(),
            "1 clock pairs out of order (ignored), 1 TSC timestamps with no clock pair to convert "
            "them (stored as 0 ns)");
}

TEST_F(ProcessDecoderTest, TraceSessionsGetEachInKernelIntervalInTime) {
  std::vector<store::KernelScopeEventRow> kernel_scope_events;
  sink_.kernel_scope_events = &kernel_scope_events;
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Device(0, record::testing::H100(), "NVIDIA H100 80GB HBM3")
      .Context(1, 0, "step")
      .Name(3, record::NameClass::kKernel, "kern")
      .Blob(9, InstrumentedKernelBlob(1, 3, 99));
  LaneCursor cursor;
  cursor.lane = 2;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  const store::Batch rows = Rows();
  ASSERT_EQ(rows.nodes.size(), 3u);
  ASSERT_EQ(kernel_scope_events.size(), 1u);
  const store::KernelScopeEventRow& loop = kernel_scope_events[0];
  EXPECT_EQ(loop.node_id, rows.nodes[2].node_id);
  EXPECT_EQ(loop.lane, 2u);
  EXPECT_GT(loop.record_pos, 0u);  // the blob's last chunk
  // Too brief to measure the SM clock: the device's 1.98 GHz makes 250 cycles 126 ns, from the
  // block's init time on the GPU's timer, with the launch the query places it by.
  EXPECT_THAT(loop, ::testing::FieldsAre(5, 77, 2, loop.record_pos, 0, loop.node_id, 99, 0, 7, 0, 0,
                                         5'000'000, 5'000'126, 250));
  EXPECT_TRUE(problems_.empty()) << problems_[0];
}

TEST_F(ProcessDecoderTest, InKernelIntervalsOfAnUnknownClockStayOutOfTheTrace) {
  std::vector<store::KernelScopeEventRow> kernel_scope_events;
  sink_.kernel_scope_events = &kernel_scope_events;
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(1, 0, "step")
      .Name(3, record::NameClass::kKernel, "kern")
      .Blob(9, InstrumentedKernelBlob(1, 3))
      .Blob(10, InstrumentedKernelBlob(1, 3, 99));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());
  // The first buffer's launch is unknown (GPU tracing was off); the second has no device clock.
  ASSERT_EQ(kernel_scope_events.size(), 1u);
  EXPECT_EQ(kernel_scope_events[0].end_ns - kernel_scope_events[0].start_ns, 250u);
  EXPECT_THAT(problems_,
              ::testing::ElementsAre(
                  "the in-kernel scopes of kern are not in the trace: when their buffer was "
                  "recorded, GPU work was not traced or the thread had launched no kernel",
                  "in-kernel times of kern assume a 1 GHz SM clock: its blocks ran too briefly "
                  "to measure the clock, and the device's rate is unknown"));
  const store::Batch rows = Rows();
  EXPECT_EQ(MetricOf(rows, rows.nodes[2].node_id, "cycles"), 500);  // both in the tree
}

TEST_F(ProcessDecoderTest, ATreeSessionMakesNoEvents) {
  LaneBytes lane;
  lane.Add(record::MakeSessionBegin(5))
      .Context(1, 0, "outer")
      .Add(record::MakeTimed(Kind::kScopeEnter, 1, 100))
      .Add(record::MakeTimed(Kind::kScopeExit, 1, 200));
  LaneCursor cursor;
  ASSERT_TRUE(Decode(cursor, lane.span()).ok());  // sink_ has no event vectors: nothing to fill
  EXPECT_EQ(Rows().node_stats.size(), 1u);
}

TEST(LaneCursorTest, RoundTripsThroughTheStoreRow) {
  LaneCursor cursor;
  cursor.read_pos = 4096;
  cursor.dropped_seen = 3;
  cursor.session_id = 5;
  cursor.tid = 12;
  cursor.state_name_id = 2;
  cursor.stack = {{1, 100}, {2, 200}};
  auto back = LaneCursor::FromRow(cursor.ToRow(1, 6));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->lane, 6u);
  EXPECT_EQ(back->read_pos, 4096u);
  EXPECT_EQ(back->session_id, 5u);
  ASSERT_EQ(back->stack.size(), 2u);
  EXPECT_EQ(back->stack[1].enter_ns, 200u);
  store::LaneRow damaged = cursor.ToRow(1, 0);
  damaged.decoder_state.pop_back();
  EXPECT_FALSE(LaneCursor::FromRow(damaged).ok());
}

}  // namespace
}  // namespace protond::ingest
