#include "daemon/instrumentation/triton_host_buffer.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "daemon/instrumentation/testing/test_buffer_builder.h"
#include "gtest/gtest.h"

namespace protond::instrumentation {
namespace {

// Written on the H100 by testdata/capture_triton36_buffers.py: Triton 3.6's
// InstrumentationHook.host_buffer for a kernel of 4 CTAs x 4 warps with scope "outer" (id 0)
// around a loop of "load" (id 1), and Proton's own tree for it (the .hatchet beside it).
std::vector<uint8_t> ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(PROTOND_INSTRUMENTATION_TESTDATA) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void AppendU32(std::vector<uint8_t>& bytes, uint32_t value) {
  uint8_t word[4];
  std::memcpy(word, &value, sizeof(word));
  bytes.insert(bytes.end(), word, word + 4);
}

// A host buffer the way the hook writes one, around a synthetic device buffer.
std::vector<uint8_t> HostBuffer(const internal::TestBufferBuilder& builder, uint32_t num_blocks,
                                uint32_t num_warps) {
  std::vector<uint8_t> bytes;
  const uint32_t header = kTritonHostHeaderBytes + 4 * num_warps;
  for (uint32_t word :
       {1u, 4u, header, header, static_cast<uint32_t>(builder.bytes().size()), kTritonDeviceCuda,
        num_blocks, num_warps, builder.block_bytes(), num_warps}) {
    AppendU32(bytes, word);
  }
  for (uint32_t warp = 0; warp < num_warps; ++warp) AppendU32(bytes, warp);
  bytes.insert(bytes.end(), builder.bytes().begin(), builder.bytes().end());
  return bytes;
}

TEST(TritonHostBufferTest, RealTriton36BufferMatchesProtonsOwnTree) {
  const std::vector<uint8_t> host = ReadTestdata("triton36_loop_host_buffer.bin");
  auto parsed = ParseTritonHostBuffer(host);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->device_type, kTritonDeviceCuda);
  EXPECT_EQ(parsed->layout.block_bytes, 8320u);  // align_up(40 + 4 * 4 + 8192, 128)
  EXPECT_EQ(parsed->layout.num_warps, 4u);
  EXPECT_EQ(parsed->layout.record_cost_cycles, 7u);
  EXPECT_EQ(parsed->device_buffer.size(), 4u * 8320);

  auto decoded = DecodeTritonHostBuffer(host, {"outer", "load"});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->blocks.size(), 4u);
  EXPECT_EQ(decoded->blocks[2].block_id, 2u);
  EXPECT_EQ(decoded->blocks[2].sm_id, 128u);
  EXPECT_EQ(decoded->blocks[0].pre_finalize_time_ns - decoded->blocks[0].init_time_ns, 544u);
  ASSERT_EQ(decoded->scopes.size(), 2u);
  // Proton wrote: outer {cycles 15921, normalized_cycles 995.0625}, load {1622, 101.375}.
  EXPECT_EQ(decoded->scopes[0].name, "outer");
  EXPECT_EQ(decoded->scopes[0].count, 16u);
  EXPECT_EQ(decoded->scopes[0].cycles, 15921u);
  EXPECT_DOUBLE_EQ(decoded->scopes[0].normalized_cycles, 995.0625);
  EXPECT_EQ(decoded->scopes[0].adjusted_cycles, 15137u);
  EXPECT_EQ(decoded->scopes[1].name, "load");
  EXPECT_EQ(decoded->scopes[1].count, 48u);  // 3 iterations x 4 warps x 4 CTAs
  EXPECT_EQ(decoded->scopes[1].cycles, 1622u);
  EXPECT_DOUBLE_EQ(decoded->scopes[1].normalized_cycles, 101.375);
  EXPECT_EQ(DescribeProblems(decoded->problems), "");
}

TEST(TritonHostBufferTest, RealWrappedBufferKeepsThePairAcrossTheWrapPoint) {
  // buffer_size=256: 8 records a warp for 42 written. Proton reads each ring from position 0,
  // not from the oldest record, and so drops the pair that straddles the wrap point: it wrote
  // load {cycles 1120, normalized_cycles 70.0} from 32 intervals; read oldest first there are 48.
  const std::vector<uint8_t> host = ReadTestdata("triton36_wrapped_host_buffer.bin");
  auto decoded = DecodeTritonHostBuffer(host, {"outer", "load"});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->scopes.size(), 1u);
  EXPECT_EQ(decoded->scopes[0].name, "load");
  EXPECT_EQ(decoded->scopes[0].count, 48u);
  EXPECT_EQ(decoded->scopes[0].cycles, 1488u);
  EXPECT_DOUBLE_EQ(decoded->scopes[0].normalized_cycles, 93.0);
  EXPECT_EQ(decoded->problems.records_lost, 16u * 34);
  EXPECT_EQ(DescribeProblems(decoded->problems),
            "instrumentation: 544 records lost to wrap-around in 16 warps (buffer too small: "
            "raise buffer_size); 32 scopes ended without start");
}

TEST(TritonHostBufferTest, SyntheticBufferRoundTrips) {
  internal::TestBufferBuilder builder(2, 2, 64);
  builder.Start(1, 1, 0, 100);
  builder.End(1, 1, 0, 150);
  auto decoded = DecodeTritonHostBuffer(HostBuffer(builder, 2, 2), {"a"});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->scopes[0].cycles, 50u);
  EXPECT_DOUBLE_EQ(decoded->scopes[0].normalized_cycles, 50.0 / 4);
}

std::string ErrorOf(const std::vector<uint8_t>& host) {
  auto parsed = ParseTritonHostBuffer(host);
  EXPECT_FALSE(parsed.ok());
  return std::string(parsed.status().message());
}

void SetWord(std::vector<uint8_t>& bytes, size_t word, uint32_t value) {
  std::memcpy(&bytes[4 * word], &value, sizeof(value));
}

TEST(TritonHostBufferTest, HeaderErrors) {
  internal::TestBufferBuilder builder(2, 2, 64);
  const std::vector<uint8_t> good = HostBuffer(builder, 2, 2);

  EXPECT_EQ(ErrorOf(std::vector<uint8_t>(good.begin(), good.begin() + 12)),
            "Triton host buffer: 12 bytes is shorter than its 40-byte header");
  std::vector<uint8_t> bad = good;
  SetWord(bad, 0, 2);
  EXPECT_EQ(ErrorOf(bad), "Triton host buffer: version 2, only version 1 (Triton 3.6) is known");
  bad = good;
  SetWord(bad, 1, 8);
  EXPECT_EQ(ErrorOf(bad), "Triton host buffer: header offset 8 is not 4");
  bad = good;
  SetWord(bad, 9, 3);
  EXPECT_EQ(ErrorOf(bad),
            "Triton host buffer: header size 48 and payload offset 48 should both be 52 for 3 "
            "warp ids");
  bad = good;
  SetWord(bad, 6, 3);
  EXPECT_EQ(ErrorOf(bad),
            "Triton host buffer: 3 blocks of 128 bytes do not make the payload's 256 bytes");
  EXPECT_EQ(ErrorOf(std::vector<uint8_t>(good.begin(), good.end() - 1)),
            "Triton host buffer: a 256-byte payload at offset 48 runs past the buffer's 303 bytes "
            "(truncated)");
}

}  // namespace
}  // namespace protond::instrumentation
