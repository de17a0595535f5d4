#include "view/hatchet/msgpack_writer.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace protond::view {
namespace {

// The bytes of `write` applied to a fresh writer, as "cc 80"-style hex, to compare with the
// bytes msgpack.org's specification gives for each form.
template <typename Write>
std::string Hex(Write write) {
  MsgPackWriter out;
  write(out);
  std::string hex;
  for (unsigned char byte : out.bytes()) {
    static constexpr char kDigits[] = "0123456789abcdef";
    if (!hex.empty()) hex += ' ';
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xf];
  }
  return hex;
}

TEST(MsgPackWriter, UnsignedIntegersTakeTheirSmallestForm) {
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.UInt(0); }), "00");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.UInt(0x7f); }), "7f");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.UInt(0x80); }), "cc 80");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.UInt(0xff); }), "cc ff");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.UInt(0x100); }), "cd 01 00");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.UInt(0xffff); }), "cd ff ff");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.UInt(0x10000); }), "ce 00 01 00 00");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.UInt(134729568); }), "ce 08 07 cf 60");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.UInt(0x100000000); }), "cf 00 00 00 01 00 00 00 00");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.UInt(std::numeric_limits<uint64_t>::max()); }),
            "cf ff ff ff ff ff ff ff ff");
}

TEST(MsgPackWriter, SignedIntegersTakeTheirSmallestForm) {
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Int(5); }), "05");  // non-negative: as unsigned
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Int(300); }), "cd 01 2c");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Int(-1); }), "ff");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Int(-32); }), "e0");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Int(-33); }), "d0 df");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Int(-128); }), "d0 80");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Int(-129); }), "d1 ff 7f");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Int(-32768); }), "d1 80 00");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Int(-32769); }), "d2 ff ff 7f ff");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Int(std::numeric_limits<int64_t>::min()); }),
            "d3 80 00 00 00 00 00 00 00");
}

TEST(MsgPackWriter, DoublesAreAlwaysFloat64) {
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Double(1.5); }), "cb 3f f8 00 00 00 00 00 00");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Double(-2.0); }), "cb c0 00 00 00 00 00 00 00");
}

TEST(MsgPackWriter, StringsCarryTheirLengthInTheSmallestHeader) {
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Str(""); }), "a0");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.Str("ROOT"); }), "a4 52 4f 4f 54");
  const std::string s31(31, 'x'), s32(32, 'x'), s255(255, 'x'), s256(256, 'x');
  const std::string s65536(65536, 'x');
  EXPECT_EQ(Hex([&](MsgPackWriter& w) { w.Str(s31); }).substr(0, 2), "bf");
  EXPECT_EQ(Hex([&](MsgPackWriter& w) { w.Str(s32); }).substr(0, 5), "d9 20");
  EXPECT_EQ(Hex([&](MsgPackWriter& w) { w.Str(s255); }).substr(0, 5), "d9 ff");
  EXPECT_EQ(Hex([&](MsgPackWriter& w) { w.Str(s256); }).substr(0, 8), "da 01 00");
  EXPECT_EQ(Hex([&](MsgPackWriter& w) { w.Str(s65536); }).substr(0, 14), "db 00 01 00 00");
  MsgPackWriter out;
  out.Str(s256);
  EXPECT_EQ(out.bytes().size(), 3 + 256u);
}

TEST(MsgPackWriter, ArrayAndMapHeaders) {
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.ArrayHeader(0); }), "90");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.ArrayHeader(15); }), "9f");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.ArrayHeader(16); }), "dc 00 10");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.ArrayHeader(0x10000); }), "dd 00 01 00 00");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.MapHeader(3); }), "83");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.MapHeader(16); }), "de 00 10");
  EXPECT_EQ(Hex([](MsgPackWriter& w) { w.MapHeader(70000); }), "df 00 01 11 70");
}

}  // namespace
}  // namespace protond::view
