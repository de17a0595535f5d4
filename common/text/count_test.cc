#include "common/text/count.h"

#include "gtest/gtest.h"

namespace protond::text {
namespace {

TEST(CountTest, ANumberFromZeroUpIsACount) {
  EXPECT_EQ(ParseCount("-n", "0").value_or(-1), 0);
  EXPECT_EQ(ParseCount("-n", "12").value_or(-1), 12);
}

TEST(CountTest, AnythingElseIsRefusedNamingTheOptionAndTheText) {
  EXPECT_EQ(ParseCount("-n", "-1").status().message(), "-n needs a number >= 0, not '-1'");
  EXPECT_EQ(ParseCount("-d", "x").status().message(), "-d needs a number >= 0, not 'x'");
  EXPECT_EQ(ParseCount("-n", "").status().message(), "-n needs a number >= 0, not ''");
}

}  // namespace
}  // namespace protond::text
