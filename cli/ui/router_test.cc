#include "cli/ui/router.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "view/testing/temp_dir_test.h"

namespace protond::cli::ui {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;

const std::string kToken(64, '7');

// A router over a page directory and a client whose daemon is not there: everything up to the
// call to protond is checked without one (the integration test has a real one).
class RouterTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    std::ofstream(dir_ + "/index.html") << "<html>page</html>";
  }

  Response Get(const std::string& path, const std::string& query = "",
               const std::string& cookie = "protond_ui=" + kToken) {
    return router_.Answer({"GET", path, query, cookie, "", ""});
  }
  static std::string Header(const Response& response, const std::string& name) {
    for (const auto& [key, value] : response.headers) {
      if (key == name) return value;
    }
    return "";
  }
  static std::string ErrorOf(const Response& response) {
    return nlohmann::json::parse(response.body).at("error");
  }

  client::Client client_{"/nonexistent/protond.sock"};
  Router router_{kToken, "/will/be/replaced", {&client_}};
};

TEST_F(RouterTest, TheTokenSignsInWithACookieAndLeavesTheAddress) {
  const Response signed_in = Get("/", "token=" + kToken, "");
  EXPECT_EQ(signed_in.status, 303);
  EXPECT_EQ(Header(signed_in, "Location"), "/");
  EXPECT_EQ(Header(signed_in, "Set-Cookie"),
            "protond_ui=" + kToken + "; HttpOnly; SameSite=Strict; Path=/");
  EXPECT_EQ(Get("/", "token=" + std::string(64, '8'), "").status, 401);
  EXPECT_EQ(Get("/", "token=", "").status, 401);
  EXPECT_EQ(Header(Get("/", "token=x", ""), "Set-Cookie"), "");
}

TEST_F(RouterTest, EverythingElseNeedsTheCookieOrTheBearerToken) {
  for (const std::string& cookie :
       {std::string(""), "protond_ui=" + std::string(64, '8'), "protond_ui=" + kToken + "x"}) {
    const Response page = Get("/", "", cookie);
    EXPECT_EQ(page.status, 401) << cookie;
    const Response api = Get("/api/sessions", "", cookie);
    EXPECT_EQ(api.status, 401) << cookie;
    EXPECT_EQ(api.content_type, "application/json");
    EXPECT_THAT(ErrorOf(api), HasSubstr("not signed in"));
  }
  EXPECT_EQ(router_.Answer({"GET", "/api/sessions", "", "", "Bearer " + kToken, ""}).status, 502);
  EXPECT_EQ(router_.Answer({"GET", "/api/sessions", "", "", "Bearer " + kToken + "7", ""}).status,
            401);
  EXPECT_EQ(router_.Answer({"GET", "/api/sessions", "", "", kToken, ""}).status, 401);
}

TEST_F(RouterTest, OnlyGet) {
  const Response post =
      router_.Answer({"POST", "/api/sessions", "", "protond_ui=" + kToken, "", ""});
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(ErrorOf(post), "only GET is served, not POST");
  EXPECT_EQ(Header(post, "Allow"), "GET");
}

TEST_F(RouterTest, PageFilesFromTheDirectory) {
  Router router(kToken, dir_, {&client_});
  const Response page = router.Answer({"GET", "/", "", "protond_ui=" + kToken, "", ""});
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body, "<html>page</html>");
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(Header(page, "X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(Header(page, "Cache-Control"), "no-store");
  EXPECT_THAT(Header(page, "Content-Security-Policy"), HasSubstr("frame-ancestors 'none'"));
  EXPECT_EQ(router.Answer({"GET", "/../etc/passwd", "", "protond_ui=" + kToken, "", ""}).status,
            404);
  EXPECT_EQ(router.Answer({"GET", "/missing.js", "", "protond_ui=" + kToken, "", ""}).status, 404);
}

// Parameters are checked before protond is asked: a 400 names the parameter.
TEST_F(RouterTest, BadParametersAreNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {"/api/tree", "session=abc"},
      {"/api/tree", ""},
      {"/api/tree", "session=7&names=long"},
      {"/api/diff", "a=1"},
      {"/api/diff", "a=1&b=0"},
      {"/api/export", "session=1&format=png"},
      {"/api/export", "session=1"},
      {"/api/tree", "session=%zz"},
      {"/api/job", ""},
      {"/api/job", "job="},
      {"/api/job", "job=77&names=long"},
      {"/api/top", ""},
      {"/api/top", "session=1&limit=x"},
      {"/api/top", "session=1&names=long"},
      {"/api/stalls", "session=x"},
      {"/api/stalls", "session=1&limit=-2"},
      {"/api/stalls", "session=1&sass=yes"},
  };
  const std::string expected[] = {
      "session: 'abc' is not a session id (a positive number; see protonctl sessions)",
      "session: the parameter is missing",
      "names: short or full, not 'long'",
      "b: the parameter is missing",
      "b: '0' is not a session id (a positive number; see protonctl sessions)",
      "format: 'png' is not a format: hatchet, hatchet_msgpack, chrome, folded, svg, csv or pprof",
      "format: the parameter is missing",
      "bad %-escape in the query: '%zz'",
      "job: the parameter is missing",
      "job: the parameter is missing",
      "names: short or full, not 'long'",
      "session: the parameter is missing",
      "limit: -n needs a number >= 0, not 'x'",
      "names: short or full, not 'long'",
      "session: 'x' is not a session id (a positive number; see protonctl sessions)",
      "limit: -n needs a number >= 0, not '-2'",
      "sass: 1 or 0, not 'yes'",
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Response answer = Get(cases[i].first, cases[i].second);
    EXPECT_EQ(answer.status, 400) << cases[i].second;
    EXPECT_EQ(ErrorOf(answer), expected[i]) << cases[i].second;
  }
}

// /api/history takes `protonctl history`'s options and refuses what it refuses, with its words.
TEST_F(RouterTest, HistoryParametersAreProtonctlHistorysOptions) {
  const std::pair<std::string, std::string> cases[] = {
      {"pid=x", "--pid needs a process id (a positive number), not 'x'"},
      {"pid=1&job=77", "--pid and --job cannot be used together"},
      {"command=train(", "bad --command regex 'train(': missing ): train("},
      {"since=30m&until=2h",
       "--since '30m' must be before --until '2h': no window starts in between"},
  };
  for (const auto& [query, message] : cases) {
    const Response answer = Get("/api/history", query);
    EXPECT_EQ(answer.status, 400) << query;
    EXPECT_EQ(ErrorOf(answer), message) << query;
  }
  // Good parameters get as far as protond, which is not there.
  EXPECT_EQ(Get("/api/history", "pid=7&since=2h").status, 502);
}

// No daemon: 502 with the client's message, which says what is (not) at the socket.
TEST_F(RouterTest, ADaemonThatDoesNotAnswerIs502) {
  const Response answer = Get("/api/tree", "session=7");
  EXPECT_EQ(answer.status, 502);
  EXPECT_THAT(ErrorOf(answer), HasSubstr("/nonexistent/protond.sock"));
  // A job is looked for on the node: one that does not answer is not a missing job (404).
  const Response job = Get("/api/job", "job=77");
  EXPECT_EQ(job.status, 502);
  EXPECT_THAT(ErrorOf(job),
              HasSubstr("no node has a session of job 77: /nonexistent/protond.sock: "));
  EXPECT_EQ(Get("/api/top", "session=7&limit=3").status, 502);
  EXPECT_EQ(Get("/api/stalls", "session=7&sass=1").status, 502);
  EXPECT_EQ(Get("/api/nothing").status, 404);
}

// protonctl --hosts ... ui: the Job page reads every node (here neither answers, and both are
// named); any other API is refused, as a session id is one node's.
TEST_F(RouterTest, OverSeveralNodesOnlyTheJobIsServed) {
  client::Client other{"/nonexistent/other.sock"};
  const Router router(kToken, dir_, {&client_, &other});
  const std::string cookie = "protond_ui=" + kToken;
  const Response job = router.Answer({"GET", "/api/job", "job=77", cookie, "", ""});
  EXPECT_EQ(job.status, 502);
  EXPECT_THAT(
      ErrorOf(job),
      ::testing::AllOf(HasSubstr("no node has a session of job 77: /nonexistent/protond.sock: "),
                       HasSubstr("; /nonexistent/other.sock: ")));
  const Response sessions = router.Answer({"GET", "/api/sessions", "", cookie, "", ""});
  EXPECT_EQ(sessions.status, 404);
  EXPECT_EQ(ErrorOf(sessions),
            "/api/sessions is not served by protonctl --hosts ... ui, which serves the Job page "
            "only (#/job/JOB, every node's ranks): use protonctl --host NODE ui for a node's "
            "sessions");
  EXPECT_EQ(router.Answer({"GET", "/", "", cookie, "", ""}).body, "<html>page</html>");
}

}  // namespace
}  // namespace protond::cli::ui
