#include "common/text/duration.h"

#include <string>

#include "gtest/gtest.h"

namespace protond::text {
namespace {

TEST(DurationTest, DurationsTakeUnitsAndABareNumberIsSeconds) {
  EXPECT_EQ(*ParseDurationMs("30s"), 30000u);
  EXPECT_EQ(*ParseDurationMs("2m"), 120000u);
  EXPECT_EQ(*ParseDurationMs("1h"), 3600000u);
  EXPECT_EQ(*ParseDurationMs("14d"), 14u * 24 * 3600000);
  EXPECT_EQ(*ParseDurationMs("500ms"), 500u);
  EXPECT_EQ(*ParseDurationMs("45"), 45000u);
  for (const char* bad : {"", "0s", "-5s", "s", "ms", "3x", "1.5s", "99999999999999999999h"}) {
    absl::StatusOr<uint64_t> parsed = ParseDurationMs(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().message(),
              std::string("'") + bad +
                  "' is not a duration (a positive number with ms, s, m, h or d; a bare number is "
                  "seconds)");
  }
}

}  // namespace
}  // namespace protond::text
