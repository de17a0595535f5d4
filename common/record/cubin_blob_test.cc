#include "common/record/cubin_blob.h"

#include <string>

#include "common/record/record_format.h"
#include "gtest/gtest.h"

namespace protond::record {
namespace {

std::span<const uint8_t> Bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

constexpr std::string_view kCubin =
    "\x7f"
    "ELF\x02\x01\x01 and the rest";

TEST(CubinBlobTest, RoundTrips) {
  auto blob = EncodeCubinBlob(0x1234567890abcdef, Bytes(kCubin));
  ASSERT_TRUE(blob.ok()) << blob.status();
  EXPECT_EQ(blob->size(), sizeof(CubinBlobHeader) + kCubin.size());
  auto parsed = ParseCubinBlob(*blob);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->crc, 0x1234567890abcdefu);
  EXPECT_EQ(parsed->cubin, kCubin);
}

TEST(CubinBlobTest, EncodeRefusesCrcZeroAndEmptyCubins) {
  EXPECT_EQ(EncodeCubinBlob(0, Bytes(kCubin)).status().message(), "cubin blob has CRC 0");
  EXPECT_EQ(EncodeCubinBlob(1, {}).status().message(), "cubin blob has no cubin");
}

TEST(CubinBlobTest, ParseNamesWhatIsWrong) {
  EXPECT_EQ(ParseCubinBlob("short").status().message(), "cubin blob of 5 bytes has no header");
  const std::string zero_crc(sizeof(CubinBlobHeader), '\0');
  EXPECT_EQ(ParseCubinBlob(zero_crc + std::string(kCubin)).status().message(),
            "cubin blob has CRC 0");
  std::string crc_one(sizeof(CubinBlobHeader), '\0');
  crc_one[0] = 1;
  EXPECT_EQ(ParseCubinBlob(crc_one).status().message(), "cubin blob has no cubin");
  EXPECT_EQ(ParseCubinBlob(crc_one + "MZ not an elf").status().message(),
            "cubin blob does not hold an ELF file");
}

}  // namespace
}  // namespace protond::record
