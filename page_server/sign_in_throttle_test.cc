#include "page_server/sign_in_throttle.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace protond::page_server {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);
constexpr char kGuesser[] = "203.0.113.7";
constexpr char kOther[] = "198.51.100.20";
using Closed = SignInThrottle::Closed;

TEST(SignInThrottleTest, TenWrongTokensInAMinuteCloseItUntilTheFirstLeavesTheMinute) {
  SignInThrottle throttle;
  for (int i = 0; i < SignInThrottle::kMaxFailuresPerCaller; ++i) {
    const absl::Time at = kStart + absl::Seconds(i);
    EXPECT_EQ(throttle.WaitBefore(kGuesser, at), std::nullopt) << i;
    EXPECT_EQ(throttle.Failed(kGuesser, at),
              i == SignInThrottle::kMaxFailuresPerCaller - 1 ? Closed::kCaller : Closed::kNothing)
        << i;
  }
  EXPECT_EQ(throttle.WaitBefore(kGuesser, kStart + absl::Seconds(15)), absl::Seconds(45));
  EXPECT_EQ(throttle.WaitBefore(kGuesser, kStart + absl::Seconds(59)), absl::Seconds(1));
  // The first failure has left the minute: one more try, which closes it again.
  EXPECT_EQ(throttle.WaitBefore(kGuesser, kStart + absl::Seconds(60)), std::nullopt);
  EXPECT_EQ(throttle.Failed(kGuesser, kStart + absl::Seconds(60)), Closed::kCaller);
  EXPECT_EQ(throttle.WaitBefore(kGuesser, kStart + absl::Seconds(60)), absl::Seconds(1));
}

TEST(SignInThrottleTest, AnotherCallerStillSignsInWhileOneIsThrottled) {
  SignInThrottle throttle;
  for (int i = 0; i < SignInThrottle::kMaxFailuresPerCaller; ++i) {
    throttle.Failed(kGuesser, kStart + absl::Seconds(i));
  }
  EXPECT_EQ(throttle.WaitBefore(kGuesser, kStart + absl::Seconds(20)), absl::Seconds(40));
  EXPECT_EQ(throttle.WaitBefore(kOther, kStart + absl::Seconds(20)), std::nullopt);
  // The other caller's own failures count for it alone.
  EXPECT_EQ(throttle.Failed(kOther, kStart + absl::Seconds(20)), Closed::kNothing);
  EXPECT_EQ(throttle.WaitBefore(kOther, kStart + absl::Seconds(21)), std::nullopt);
}

TEST(SignInThrottleTest, FailuresSpreadOverMoreThanAMinuteNeverCloseIt) {
  SignInThrottle throttle;
  for (int i = 0; i < 100; ++i) {
    const absl::Time at = kStart + absl::Seconds(7 * i);  // 9 in any minute
    EXPECT_EQ(throttle.WaitBefore(kGuesser, at), std::nullopt) << i;
    EXPECT_EQ(throttle.Failed(kGuesser, at), Closed::kNothing) << i;
  }
}

TEST(SignInThrottleTest, AnIpv6CallerCountsByItsSlash64) {
  EXPECT_EQ(ThrottledCaller("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
  EXPECT_EQ(ThrottledCaller("203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(ThrottledCaller("::ffff:203.0.113.7"), "::ffff:203.0.113.7");
  SignInThrottle throttle;
  for (int i = 0; i < SignInThrottle::kMaxFailuresPerCaller; ++i) {
    throttle.Failed(absl::StrCat("2001:db8:1:2::", i + 1), kStart + absl::Seconds(i));
  }
  const absl::Time later = kStart + absl::Seconds(20);
  EXPECT_EQ(throttle.WaitBefore("2001:db8:1:2:ffff::9", later), absl::Seconds(40));
  EXPECT_EQ(throttle.WaitBefore("2001:db8:1:3::1", later), std::nullopt);
  // IPv4 callers mapped into IPv6 (a front listening on [::]) are each their own.
  for (int i = 0; i < SignInThrottle::kMaxFailuresPerCaller; ++i) {
    throttle.Failed("::ffff:203.0.113.7", later + absl::Seconds(i));
  }
  EXPECT_NE(throttle.WaitBefore("::ffff:203.0.113.7", later + absl::Seconds(10)), std::nullopt);
  EXPECT_EQ(throttle.WaitBefore("::ffff:203.0.113.8", later + absl::Seconds(10)), std::nullopt);
}

// A guesser with an address per guess: the overall cap closes the form to everyone, and the table
// of addresses never holds more than the cap, however many addresses come.
TEST(SignInThrottleTest, ManyAddressesCloseItForEveryoneAndKeepTheTableBounded) {
  SignInThrottle throttle;
  for (int i = 0; i < 10'000; ++i) {
    const std::string caller = absl::StrCat("10.", i / 256 % 256, ".", i % 256, ".1");
    const Closed closed = throttle.Failed(caller, kStart + absl::Milliseconds(i));
    EXPECT_EQ(closed,
              i == SignInThrottle::kMaxFailuresOverall - 1 ? Closed::kEveryone : Closed::kNothing)
        << i;
  }
  EXPECT_EQ(throttle.callers_kept(), static_cast<size_t>(SignInThrottle::kMaxFailuresOverall));
  EXPECT_EQ(throttle.WaitBefore(kOther, kStart + absl::Seconds(30)), absl::Seconds(30));
  // A minute after the first, the oldest failures leave and their addresses are dropped.
  EXPECT_EQ(throttle.WaitBefore(kOther, kStart + absl::Seconds(61)), std::nullopt);
  EXPECT_EQ(throttle.callers_kept(), 0u);
}

}  // namespace
}  // namespace protond::page_server
