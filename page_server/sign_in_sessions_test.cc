#include "page_server/sign_in_sessions.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::page_server {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);
const SignedInUser kAlice{1000, {}};
const SignedInUser kJobOnly{1001, {"77"}};

TEST(SignInSessionsTest, EachSignInGetsItsOwnRandomKey) {
  SignInSessions sessions;
  std::set<std::string> keys;
  for (int i = 0; i < 50; ++i) {
    absl::StatusOr<std::string> key = sessions.SignIn(kAlice, kNow + absl::Hours(1), kNow);
    ASSERT_TRUE(key.ok()) << key.status();
    EXPECT_THAT(*key, ::testing::MatchesRegex("[0-9a-f]{64}"));
    keys.insert(*key);
  }
  EXPECT_EQ(keys.size(), 50u);
  EXPECT_EQ(sessions.size(), 50u);
}

TEST(SignInSessionsTest, AKeyFindsWhoSignedInAndNothingElseDoes) {
  SignInSessions sessions;
  const std::string alice = *sessions.SignIn(kAlice, absl::InfiniteFuture(), kNow);
  const std::string job = *sessions.SignIn(kJobOnly, absl::InfiniteFuture(), kNow);
  EXPECT_EQ(sessions.Find(alice, kNow), kAlice);
  EXPECT_EQ(sessions.Find(job, kNow), kJobOnly);
  EXPECT_EQ(sessions.Find("", kNow), std::nullopt);
  EXPECT_EQ(sessions.Find(alice.substr(1), kNow), std::nullopt);
  std::string near = alice;
  near.back() = near.back() == '0' ? '1' : '0';
  EXPECT_EQ(sessions.Find(near, kNow), std::nullopt);
}

TEST(SignInSessionsTest, AKeyExpiresWhenItsTokenDoes) {
  SignInSessions sessions;
  const absl::Time expires = kNow + absl::Minutes(5);
  const std::string key = *sessions.SignIn(kAlice, expires, kNow);
  EXPECT_EQ(sessions.Find(key, expires - absl::Nanoseconds(1)), kAlice);
  EXPECT_EQ(sessions.Find(key, expires), std::nullopt);
  EXPECT_EQ(sessions.size(), 0u);  // dropped, not only refused
  EXPECT_EQ(sessions.Find(key, kNow), std::nullopt);
}

TEST(SignInSessionsTest, SigningOutForgetsTheKeyOnly) {
  SignInSessions sessions;
  const std::string key = *sessions.SignIn(kAlice, absl::InfiniteFuture(), kNow);
  const std::string other = *sessions.SignIn(kAlice, absl::InfiniteFuture(), kNow);
  sessions.SignOut(key);
  sessions.SignOut("not a key");
  EXPECT_EQ(sessions.Find(key, kNow), std::nullopt);
  EXPECT_EQ(sessions.Find(other, kNow), kAlice);
}

TEST(SignInSessionsTest, TooManyLiveSignInsAreRefusedUntilSomeExpire) {
  SignInSessions sessions;
  for (size_t i = 0; i < SignInSessions::kMaxSignIns; ++i) {
    ASSERT_TRUE(sessions.SignIn(kAlice, kNow + absl::Seconds(10), kNow).ok());
  }
  const absl::StatusOr<std::string> refused = sessions.SignIn(kAlice, absl::InfiniteFuture(), kNow);
  EXPECT_TRUE(absl::IsResourceExhausted(refused.status())) << refused.status();
  EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("too many sign-ins"));
  EXPECT_TRUE(sessions.SignIn(kAlice, absl::InfiniteFuture(), kNow + absl::Seconds(10)).ok());
  EXPECT_EQ(sessions.size(), 1u);
}

}  // namespace
}  // namespace protond::page_server
