#include "common/text/utf8.h"

#include <string>

#include "gtest/gtest.h"

namespace protond::text {
namespace {

TEST(Utf8Test, DecodesEachLength) {
  uint32_t code_point = 0;
  EXPECT_EQ(DecodeUtf8("a", &code_point), 1u);
  EXPECT_EQ(code_point, 0x61u);
  EXPECT_EQ(DecodeUtf8("é", &code_point), 2u);
  EXPECT_EQ(code_point, 0xe9u);
  EXPECT_EQ(DecodeUtf8("名", &code_point), 3u);
  EXPECT_EQ(code_point, 0x540du);
  EXPECT_EQ(DecodeUtf8("🚀", &code_point), 4u);
  EXPECT_EQ(code_point, 0x1f680u);
}

TEST(Utf8Test, MalformedSequencesAreZero) {
  uint32_t code_point = 0;
  EXPECT_EQ(DecodeUtf8("", &code_point), 0u);
  EXPECT_EQ(DecodeUtf8("\x80", &code_point), 0u);              // a stray continuation byte
  EXPECT_EQ(DecodeUtf8("\xc0\xaf", &code_point), 0u);          // overlong '/'
  EXPECT_EQ(DecodeUtf8("\xe0\x80\xaf", &code_point), 0u);      // overlong '/'
  EXPECT_EQ(DecodeUtf8("\xed\xa0\x80", &code_point), 0u);      // U+D800, a surrogate
  EXPECT_EQ(DecodeUtf8("\xf4\x90\x80\x80", &code_point), 0u);  // past U+10FFFF
  EXPECT_EQ(DecodeUtf8("\xe5\x90", &code_point), 0u);          // cut short
  EXPECT_EQ(DecodeUtf8("\xff", &code_point), 0u);
}

TEST(Utf8Test, FindInvalidUtf8NamesTheFirstBadByte) {
  EXPECT_EQ(FindInvalidUtf8(""), absl::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("é名🚀 ok"), absl::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(FindInvalidUtf8("é\xe5\x90"), 2u);
  EXPECT_EQ(FindInvalidUtf8(std::string("a\0b\x80", 4)), 3u);  // NUL is UTF-8
}

}  // namespace
}  // namespace protond::text
