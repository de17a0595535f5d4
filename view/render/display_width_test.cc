#include "view/render/display_width.h"

#include "gtest/gtest.h"

namespace protond::view {
namespace {

TEST(DisplayWidthTest, AsciiAndLatinTakeOneColumnEach) {
  EXPECT_EQ(DisplayWidth(""), 0u);
  EXPECT_EQ(DisplayWidth("train step"), 10u);
  EXPECT_EQ(DisplayWidth("é├─\xc2\xa0"), 4u);
}

TEST(DisplayWidthTest, WideCharactersAndEmojiTakeTwo) {
  EXPECT_EQ(DisplayWidth("名前"), 4u);              // CJK ideographs
  EXPECT_EQ(DisplayWidth("학습"), 4u);              // Hangul syllables
  EXPECT_EQ(DisplayWidth("ＡＢ"), 4u);              // fullwidth forms
  EXPECT_EQ(DisplayWidth("run🚀"), 5u);              // U+1F680, outside the BMP
  EXPECT_EQ(DisplayWidth("\xe2\x9c\x85"), 2u);      // U+2705, an emoji inside the BMP
  EXPECT_EQ(DisplayWidth("\xf0\xa0\x80\x80"), 2u);  // U+20000, CJK extension B
}

TEST(DisplayWidthTest, CombiningMarksAndJoinersTakeNone) {
  EXPECT_EQ(DisplayWidth("e\xcc\x81"), 1u);  // e + U+0301 combining acute
  EXPECT_EQ(DisplayWidth("a\xe2\x80\x8b"
                         "b"),
            2u);                                            // U+200B zero-width space
  EXPECT_EQ(DisplayWidth("\xe2\x9d\xa4\xef\xb8\x8f"), 1u);  // U+2764 + variation selector 16
}

TEST(DisplayWidthTest, EachByteOfMalformedUtf8TakesOne) {
  EXPECT_EQ(DisplayWidth("\xff"), 1u);
  EXPECT_EQ(DisplayWidth("\xe5\x90"), 2u);      // 名 cut short
  EXPECT_EQ(DisplayWidth("\xc0\xaf"), 2u);      // overlong '/'
  EXPECT_EQ(DisplayWidth("\xed\xa0\x80"), 3u);  // a surrogate
  EXPECT_EQ(DisplayWidth("\x80"
                         "a"),
            2u);  // a stray continuation byte
}

}  // namespace
}  // namespace protond::view
