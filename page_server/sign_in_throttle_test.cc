#include "page_server/sign_in_throttle.h"

#include "gtest/gtest.h"

namespace protond::page_server {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

TEST(SignInThrottleTest, TenWrongTokensInAMinuteCloseItUntilTheFirstLeavesTheMinute) {
  SignInThrottle throttle;
  for (int i = 0; i < SignInThrottle::kMaxFailures; ++i) {
    const absl::Time at = kStart + absl::Seconds(i);
    EXPECT_EQ(throttle.WaitBefore(at), std::nullopt) << i;
    EXPECT_EQ(throttle.Failed(at), i == SignInThrottle::kMaxFailures - 1) << i;
  }
  EXPECT_EQ(throttle.WaitBefore(kStart + absl::Seconds(15)), absl::Seconds(45));
  EXPECT_EQ(throttle.WaitBefore(kStart + absl::Seconds(59)), absl::Seconds(1));
  // The first failure has left the minute: one more try, which closes it again.
  EXPECT_EQ(throttle.WaitBefore(kStart + absl::Seconds(60)), std::nullopt);
  EXPECT_TRUE(throttle.Failed(kStart + absl::Seconds(60)));
  EXPECT_EQ(throttle.WaitBefore(kStart + absl::Seconds(60)), absl::Seconds(1));
}

TEST(SignInThrottleTest, FailuresSpreadOverMoreThanAMinuteNeverCloseIt) {
  SignInThrottle throttle;
  for (int i = 0; i < 100; ++i) {
    const absl::Time at = kStart + absl::Seconds(7 * i);  // 9 in any minute
    EXPECT_EQ(throttle.WaitBefore(at), std::nullopt) << i;
    EXPECT_FALSE(throttle.Failed(at)) << i;
  }
}

}  // namespace
}  // namespace protond::page_server
