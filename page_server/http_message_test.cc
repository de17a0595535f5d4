#include "page_server/http_message.h"

#include "gtest/gtest.h"

namespace protond::page_server {
namespace {

TEST(HttpMessageTest, QueryParametersAreDecoded) {
  absl::StatusOr<std::map<std::string, std::string>> query =
      ParseQuery("session=7&metrics=time%2Fms,count&names=&a+b=%3Cimg%3E&session=8&flag");
  ASSERT_TRUE(query.ok()) << query.status();
  const std::map<std::string, std::string> expected = {{"session", "7"},
                                                       {"metrics", "time/ms,count"},
                                                       {"names", ""},
                                                       {"a b", "<img>"},
                                                       {"flag", ""}};
  EXPECT_EQ(*query, expected);
  EXPECT_TRUE(ParseQuery("")->empty());
}

TEST(HttpMessageTest, ABadEscapeIsNamed) {
  EXPECT_EQ(ParseQuery("metrics=%zz").status().message(), "bad %-escape in the query: '%zz'");
  EXPECT_EQ(ParseQuery("metrics=%4").status().message(), "bad %-escape in the query: '%4'");
}

TEST(HttpMessageTest, CookieByName) {
  EXPECT_EQ(CookieValue("a=1; protond_ui=abc; b=2", "protond_ui"), "abc");
  EXPECT_EQ(CookieValue("protond_ui=abc", "protond_ui"), "abc");
  EXPECT_EQ(CookieValue("xprotond_ui=abc", "protond_ui"), "");
  EXPECT_EQ(CookieValue("protond_uix=abc", "protond_ui"), "");
  EXPECT_EQ(CookieValue("", "protond_ui"), "");
}

TEST(HttpMessageTest, ErrorsAreJsonWithTheirStatus) {
  const Response error = JsonError(400, "metrics: unknown metric \"<b>\"");
  EXPECT_EQ(error.status, 400);
  EXPECT_EQ(error.content_type, "application/json");
  EXPECT_EQ(error.body, R"({"error":"metrics: unknown metric \"<b>\""})");
  EXPECT_EQ(HttpStatusOf(absl::InvalidArgumentError("")), 400);
  EXPECT_EQ(HttpStatusOf(absl::FailedPreconditionError("")), 400);
  EXPECT_EQ(HttpStatusOf(absl::NotFoundError("")), 404);
  EXPECT_EQ(HttpStatusOf(absl::PermissionDeniedError("")), 404);
  EXPECT_EQ(HttpStatusOf(absl::UnavailableError("")), 502);
  EXPECT_EQ(HttpStatusOf(absl::DeadlineExceededError("")), 502);
}

}  // namespace
}  // namespace protond::page_server
