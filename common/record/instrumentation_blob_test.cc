#include "common/record/instrumentation_blob.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace protond::record {
namespace {

InstrumentationBufferHeader Header(uint32_t block_bytes = 8, uint32_t num_warps = 4) {
  InstrumentationBufferHeader header{};
  header.context_id = 3;
  header.kernel_name_id = 5;
  header.device_id = 1;
  header.layout = static_cast<uint32_t>(InstrumentationLayout::kCircular);
  header.block_bytes = block_bytes;
  header.num_warps = num_warps;
  return header;
}

TEST(InstrumentationBlobTest, RoundTrip) {
  const std::vector<std::string_view> names = {"loop", "load"};
  const std::vector<uint8_t> buffer = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  InstrumentationBufferHeader header = Header();
  header.flags = kLaunchKnown;
  header.launch_correlation_id = 4242;
  auto blob = EncodeInstrumentationBlob(header, {}, names, buffer);
  ASSERT_TRUE(blob.ok()) << blob.status();
  EXPECT_EQ(blob->size(), 48u + 16u + 16u);  // header, "loop\0load\0" padded to 16, buffer
  auto parsed = ParseInstrumentationBlob(*blob);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->header.context_id, 3u);
  EXPECT_EQ(parsed->header.kernel_name_id, 5u);
  EXPECT_EQ(parsed->header.num_scopes, 2u);
  EXPECT_EQ(parsed->header.flags, kLaunchKnown);
  EXPECT_EQ(parsed->header.launch_correlation_id, 4242u);
  EXPECT_EQ(parsed->scope_names, names);
  EXPECT_EQ(std::vector<uint8_t>(parsed->buffer.begin(), parsed->buffer.end()), buffer);
}

TEST(InstrumentationBlobTest, TritonHostBufferNeedsNoBlockSize) {
  InstrumentationBufferHeader header = Header(0, 0);
  header.layout = static_cast<uint32_t>(InstrumentationLayout::kTritonHostBuffer);
  const std::vector<uint8_t> host(52, 1);  // its header says the rest
  auto blob = EncodeInstrumentationBlob(header, {}, {}, host);
  ASSERT_TRUE(blob.ok()) << blob.status();
  auto parsed = ParseInstrumentationBlob(*blob);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->buffer.size(), 52u);
  EXPECT_EQ(EncodeInstrumentationBlob(header, {}, {}, {}).status().message(),
            "Triton host buffer is empty");
}

TEST(InstrumentationBlobTest, ProfiledWarpsTravelWithTheBuffer) {
  const std::vector<uint32_t> warps = {0, 4};
  const std::vector<uint8_t> buffer(16);
  auto parsed =
      ParseInstrumentationBlob(*EncodeInstrumentationBlob(Header(8, 8), warps, {}, buffer));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->profiled_warps, warps);
  const std::vector<uint32_t> unordered = {4, 0};
  EXPECT_EQ(EncodeInstrumentationBlob(Header(8, 8), unordered, {}, buffer).status().message(),
            "instrumentation buffer: profiled warp 0 is out of order or not below the CTA's 8 "
            "warps");
  const std::vector<uint32_t> too_high = {8};
  EXPECT_FALSE(EncodeInstrumentationBlob(Header(8, 8), too_high, {}, buffer).ok());
}

TEST(InstrumentationBlobTest, RefusesWhatTheProgramGotWrong) {
  const std::vector<uint8_t> buffer(12);
  EXPECT_EQ(EncodeInstrumentationBlob(Header(), {}, {}, buffer).status().message(),
            "instrumentation buffer of 12 bytes is not a whole number of 8-byte blocks");
  EXPECT_EQ(EncodeInstrumentationBlob(Header(0, 4), {}, {}, buffer).status().message(),
            "instrumentation buffer has block size 0 and 4 warps; neither may be 0");
  const std::vector<std::string_view> empty_name = {"a", ""};
  EXPECT_EQ(EncodeInstrumentationBlob(Header(4), {}, empty_name, buffer).status().message(),
            "instrumentation scope 1 has a name of 0 bytes; it must have 1 to 4096 bytes and no "
            "zero byte");
  const std::vector<std::string_view> too_many(257, "s");
  EXPECT_EQ(EncodeInstrumentationBlob(Header(4), {}, too_many, buffer).status().message(),
            "instrumentation buffer names 257 scopes; the record encoding allows 256");
}

TEST(InstrumentationBlobTest, Malicious_RefusesBlobsThatDoNotAddUp) {
  const std::vector<std::string_view> names = {"loop"};
  const std::vector<uint8_t> buffer(16);
  const std::string good = *EncodeInstrumentationBlob(Header(), {}, names, buffer);
  EXPECT_EQ(ParseInstrumentationBlob(good.substr(0, 20)).status().message(),
            "instrumentation blob of 20 bytes has no header");

  std::string overrun = good;
  overrun[28] = 100;  // scope_names_bytes
  EXPECT_EQ(ParseInstrumentationBlob(overrun).status().message(),
            "instrumentation blob of 72 bytes is too short for 0 warp ids and 100 bytes of scope "
            "names");
  std::string many_warps = good;
  many_warps[35] = 0x40;  // num_profiled_warps 2^30
  EXPECT_EQ(ParseInstrumentationBlob(many_warps).status().message(),
            "instrumentation blob of 72 bytes is too short for 1073741824 warp ids and 5 bytes of "
            "scope names");

  std::string miscounted = good;
  miscounted[24] = 2;  // num_scopes
  EXPECT_EQ(ParseInstrumentationBlob(miscounted).status().message(),
            "instrumentation scope names do not make 2 names");

  std::string flags = good;
  flags[36] = 6;
  EXPECT_EQ(ParseInstrumentationBlob(flags).status().message(),
            "instrumentation buffer has unknown flags 0x6");

  std::string layout = good;
  layout[12] = 9;
  EXPECT_EQ(ParseInstrumentationBlob(layout).status().message(),
            "instrumentation buffer has layout 9");

  EXPECT_EQ(ParseInstrumentationBlob(good.substr(0, good.size() - 4)).status().message(),
            "instrumentation buffer of 12 bytes is not a whole number of 8-byte blocks");
}

}  // namespace
}  // namespace protond::record
