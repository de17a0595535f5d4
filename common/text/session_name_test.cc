#include "common/text/session_name.h"

#include <string>

#include "gtest/gtest.h"

namespace protond::text {
namespace {

TEST(SessionNameTest, PrintableUtf8UpToTheLimitIsAccepted) {
  EXPECT_TRUE(CheckSessionName("").ok());
  EXPECT_TRUE(CheckSessionName("train step 3").ok());
  EXPECT_TRUE(CheckSessionName("学習 run🚀 é").ok());
  EXPECT_TRUE(CheckSessionName(std::string(kMaxSessionNameBytes, 'x')).ok());
}

TEST(SessionNameTest, TooLongIsRefusedWithItsSize) {
  EXPECT_EQ(CheckSessionName(std::string(300, 'x')).ToString(),
            "INVALID_ARGUMENT: session name is 300 bytes, more than 256");
}

// protonctl printed "protonctl: " and nothing else for one, after a protobuf log line: a proto3
// string that is not UTF-8 fails to parse in protond.
TEST(SessionNameTest, InvalidUtf8IsRefusedNamingTheByte) {
  EXPECT_EQ(CheckSessionName("bad\xff").ToString(),
            "INVALID_ARGUMENT: session name has invalid UTF-8 at byte 3 (0xff); use UTF-8 text");
  EXPECT_EQ(CheckSessionName("é\xc3(").message(),
            "session name has invalid UTF-8 at byte 2 (0xc3); use UTF-8 text");  // cut short
  EXPECT_EQ(CheckSessionName("\xc0\xaf").message(),
            "session name has invalid UTF-8 at byte 0 (0xc0); use UTF-8 text");  // overlong '/'
  EXPECT_EQ(CheckSessionName("a\xed\xa0\x80").message(),
            "session name has invalid UTF-8 at byte 1 (0xed); use UTF-8 text");  // a surrogate
}

TEST(SessionNameTest, ControlCharactersAreRefusedShownEscaped) {
  EXPECT_EQ(CheckSessionName("bad\x1b]0;owned\x07").message(),
            "session name 'bad\\x1b]0;owned\\x07' has a control character at byte 3; use "
            "printable text");
  EXPECT_EQ(CheckSessionName("exe\u202etxt").message(),
            "session name 'exe\\u202etxt' has a control character at byte 3; use printable text");
}

}  // namespace
}  // namespace protond::text
