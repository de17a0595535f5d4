#include "common/text/printable_text.h"

#include <string>

#include "gtest/gtest.h"

namespace protond::text {
namespace {

TEST(PrintableTextTest, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(PrintableText("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(PrintableText("line\nnext\r\t"), "line\\x0anext\\x0d\\x09");
  EXPECT_EQ(PrintableText(std::string("nul\0del\x7f", 8)), "nul\\x00del\\x7f");
  EXPECT_EQ(PrintableText("csi\xc2\x9b"
                          "31m"),
            "csi\\u009b31m");
  EXPECT_EQ(PrintableText("\xc2\x80\xc2\x9f"), "\\u0080\\u009f");
}

TEST(PrintableTextTest, BidiControlsBecomeVisibleEscapes) {
  // After U+202E (right-to-left override) "txt.exe" would show as "exe.txt".
  EXPECT_EQ(PrintableText("exe\u202etxt.exe"), "exe\\u202etxt.exe");
  EXPECT_EQ(PrintableText("\u202a\u202b\u202c\u202d"), "\\u202a\\u202b\\u202c\\u202d");
  EXPECT_EQ(PrintableText("\u2066\u2067\u2068\u2069"), "\\u2066\\u2067\\u2068\\u2069");
  EXPECT_EQ(PrintableText("\u200e\u200f\u061c"), "\\u200e\\u200f\\u061c");
  // Their neighbours are printable and kept: zero-width joiner, U+2029, U+2070, Arabic U+061B.
  EXPECT_EQ(PrintableText("\u200d\u2029\u2070\u061b"), "\u200d\u2029\u2070\u061b");
  EXPECT_EQ(FindControlCharacter("ab\u2067"), 2u);
}

TEST(PrintableTextTest, OtherTextIsKept) {
  EXPECT_EQ(PrintableText(""), "");
  EXPECT_EQ(PrintableText("void at::native::add<float>(int) @ model.py:42"),
            "void at::native::add<float>(int) @ model.py:42");
  EXPECT_EQ(PrintableText("\xc2\xa0nbsp é ├─ 名前"), "\xc2\xa0nbsp é ├─ 名前");
  // Not UTF-8 at all: kept as it is (the terminal shows its replacement character).
  EXPECT_EQ(PrintableText("\xff\xc2"), "\xff\xc2");
}

TEST(PrintableTextTest, FindControlCharacterNamesTheFirst) {
  EXPECT_EQ(FindControlCharacter("train step"), absl::string_view::npos);
  EXPECT_EQ(FindControlCharacter("é名\xc2\xa0"), absl::string_view::npos);
  EXPECT_EQ(FindControlCharacter("ab\ncd\x1b"), 2u);
  EXPECT_EQ(FindControlCharacter("é\xc2\x9b"), 2u);
  EXPECT_EQ(FindControlCharacter("\x7f"), 0u);
}

}  // namespace
}  // namespace protond::text
