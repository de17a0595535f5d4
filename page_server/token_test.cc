#include "page_server/token.h"

#include <set>

#include "absl/strings/ascii.h"
#include "gtest/gtest.h"

namespace protond::page_server {
namespace {

TEST(TokenTest, SixtyFourHexDigitsEachTimeNew) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<std::string> token = NewToken();
    ASSERT_TRUE(token.ok()) << token.status();
    ASSERT_EQ(token->size(), 64u);
    for (char c : *token) EXPECT_TRUE(absl::ascii_isxdigit(c) && !absl::ascii_isupper(c)) << c;
    seen.insert(*token);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(TokenTest, OnlyTheSameBytesMatch) {
  const std::string token(64, 'a');
  EXPECT_TRUE(SameToken(token, token));
  EXPECT_FALSE(SameToken("", token));
  EXPECT_FALSE(SameToken(token.substr(1), token));
  EXPECT_FALSE(SameToken(token + "a", token));
  std::string last = token;
  last.back() = 'b';
  EXPECT_FALSE(SameToken(last, token));
  std::string first = token;
  first.front() = 'A';
  EXPECT_FALSE(SameToken(first, token));
}

}  // namespace
}  // namespace protond::page_server
