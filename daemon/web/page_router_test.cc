#include "daemon/web/page_router.h"

#include <sys/stat.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "view/testing/temp_dir_test.h"
#include "view/testing/test_profiles.h"

namespace protond::web {
namespace {

using page_server::Request;
using page_server::Response;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kAliceToken[] = "alice-token-0123456789abcdef";
constexpr char kJobToken[] = "job-token-0123456789abcdef";
const absl::Time kNow = absl::FromUnixSeconds(1'790'000'000);              // 2026-09-21
const absl::Time kJobTokenExpires = absl::FromUnixSeconds(1'798'761'600);  // 2027-01-01

// What the daemon would list: one session per caller, named after its uid and jobs, and of its
// first job.
class FakeSource : public page_server::ProfileSource {
 public:
  explicit FakeSource(const service::Peer& peer) : peer_(peer) {}
  absl::StatusOr<v1::ListSessionsResponse> ListSessions() override {
    v1::ListSessionsResponse listed;
    v1::Session* session = listed.add_sessions();
    session->set_id(7);
    session->set_uid(peer_.uid);
    session->set_name(absl::StrCat("of ", peer_.uid, peer_.remote ? " remote" : "",
                                   peer_.jobs.empty() ? "" : " job " + peer_.jobs[0]));
    if (!peer_.jobs.empty()) session->set_job(peer_.jobs[0]);
    return listed;
  }
  // Session 7's tree: a matmul on an H100, and with `instructions` a note that says so.
  absl::StatusOr<v1::Tree> GetTree(uint64_t session_id, const std::string&,
                                   bool instructions) override {
    if (session_id != 7) return absl::NotFoundError("no tree here");
    v1::Tree tree;
    testing::AddNode(&tree, 0, 0, "ROOT");
    testing::AddH100Matmul(&tree, 1, 0);
    testing::AddH100Sxm(&tree);
    if (instructions) tree.add_notes("with instructions");
    return tree;
  }
  absl::StatusOr<v1::Collectives> GetCollectives(uint64_t) override { return v1::Collectives(); }
  // One window of the caller's, whatever the request; a pid names a window that is not there.
  absl::StatusOr<v1::ListHistoryResponse> ListHistory(
      const v1::ListHistoryRequest& request) override {
    v1::ListHistoryResponse listed;
    listed.set_total_windows(1);
    if (request.pid() != 0) return listed;
    v1::Session* window = listed.add_windows();
    window->set_id(9);
    window->set_name(absl::StrCat("window job of ", peer_.uid));
    return listed;
  }
  // Its one window's tree.
  absl::StatusOr<v1::RangeTree> GetRangeTree(const v1::ListHistoryRequest& request) override {
    ASSIGN_OR_RETURN(v1::ListHistoryResponse listed, ListHistory(request));
    v1::RangeTree range;
    *range.mutable_windows() = std::move(*listed.mutable_windows());
    if (!range.windows().empty()) {
      ASSIGN_OR_RETURN(*range.mutable_tree(), GetTree(9, "", false));
    }
    return range;
  }
  // Session 7 is a tree session.
  absl::StatusOr<v1::Trace> GetTrace(uint64_t session_id) override {
    return absl::FailedPreconditionError(
        absl::StrCat("session ", session_id, " was not started with --data trace"));
  }
  absl::StatusOr<int64_t> GetClock() override { return 0; }

 private:
  const service::Peer peer_;
};

class PageRouterTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    std::ofstream(dir_ + "/index.html") << "<html>the page</html>";
    WriteTokens(absl::StrCat(kAliceToken, " 1000\n", kJobToken,
                             " 1001 jobs=77 expires=2027-01-01T00:00:00Z\n"));
    absl::StatusOr<std::shared_ptr<server::TokenFile>> tokens =
        server::TokenFile::Load(dir_ + "/tokens");
    ASSERT_TRUE(tokens.ok()) << tokens.status();
    tokens_ = *tokens;
    router_ = std::make_unique<PageRouter>(dir_, tokens_, [](const service::Peer& peer) {
      return std::make_unique<FakeSource>(peer);
    });
  }

  void WriteTokens(const std::string& text) {
    std::ofstream(dir_ + "/tokens") << text;
    chmod((dir_ + "/tokens").c_str(), 0600);
  }
  static std::string Header(const Response& response, const std::string& name) {
    for (const auto& [key, value] : response.headers) {
      if (key == name) return value;
    }
    return "";
  }
  Response Answer(const std::string& method, const std::string& path, const std::string& cookie,
                  const std::string& body = "") {
    return router_->Answer({method, path, "", cookie, "", body}, kNow);
  }
  Response AnswerApi(const std::string& path, const std::string& query, const std::string& cookie) {
    return router_->Answer({"GET", path, query, cookie, "", ""}, kNow);
  }
  // Signs in with `token`; the Cookie header the browser then sends.
  std::string SignIn(const std::string& token) {
    const Response answer = Answer("POST", "/sign-in", "", "token=" + token);
    EXPECT_EQ(answer.status, 303) << answer.body;
    const std::string set_cookie = Header(answer, "Set-Cookie");
    return set_cookie.substr(0, set_cookie.find(';'));
  }

  std::shared_ptr<server::TokenFile> tokens_;
  std::unique_ptr<PageRouter> router_;
};

TEST_F(PageRouterTest, WithoutACookieTheStartIsTheSignInFormAndTheRestIs401) {
  const Response form = Answer("GET", "/", "");
  EXPECT_EQ(form.status, 200);
  EXPECT_THAT(form.body, HasSubstr("<form method=\"post\" action=\"/sign-in\">"));
  EXPECT_THAT(Header(form, "Content-Security-Policy"), HasSubstr("form-action 'self'"));
  for (const std::string& cookie :
       std::vector<std::string>{"", "protond_page=", "protond_page=0123abcd",
                                std::string("protond_page=") + kAliceToken}) {
    const Response api = Answer("GET", "/api/sessions", cookie);
    EXPECT_EQ(api.status, 401) << cookie;
    EXPECT_EQ(Header(api, "Content-Type"), "");  // the type is the response's own field
    EXPECT_EQ(api.content_type, "application/json");
    EXPECT_EQ(nlohmann::json::parse(api.body).at("error"),
              "not signed in: sign in at / with your token");
    EXPECT_EQ(Answer("GET", "/app.js", cookie).status, 401) << cookie;
  }
}

TEST_F(PageRouterTest, ATokenSignsInWithARandomKeyThatIsNotTheToken) {
  const Response answer = Answer("POST", "/sign-in", "", absl::StrCat("token=", kAliceToken));
  EXPECT_EQ(answer.status, 303);
  EXPECT_EQ(Header(answer, "Location"), "/");
  const std::string set_cookie = Header(answer, "Set-Cookie");
  EXPECT_THAT(set_cookie,
              ::testing::MatchesRegex(
                  "protond_page=[0-9a-f]{64}; HttpOnly; Secure; SameSite=Strict; Path=/"));
  EXPECT_THAT(set_cookie, Not(HasSubstr(kAliceToken)));
  EXPECT_NE(SignIn(kAliceToken), SignIn(kAliceToken));
  const Response page = Answer("GET", "/", SignIn(kAliceToken));
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body, "<html>the page</html>");
}

TEST_F(PageRouterTest, TheApiSeesWhatTheTokensUserMay) {
  const Response alice = Answer("GET", "/api/sessions", SignIn(kAliceToken));
  ASSERT_EQ(alice.status, 200) << alice.body;
  EXPECT_EQ(nlohmann::json::parse(alice.body)["sessions"][0]["name"], "of 1000 remote");
  const Response job = Answer("GET", "/api/sessions", SignIn(kJobToken));
  EXPECT_EQ(nlohmann::json::parse(job.body)["sessions"][0]["name"], "of 1001 remote job 77");
}

// A job's page reads the sessions the token's user may see: the job token's session 7 is job 77's
// (one rank, read whole), none of alice's is.
TEST_F(PageRouterTest, AJobIsReadThroughTheTokensUsersSource) {
  const Response job = AnswerApi("/api/job", "job=77", SignIn(kJobToken));
  ASSERT_EQ(job.status, 200) << job.body;
  const nlohmann::json json = nlohmann::json::parse(job.body);
  EXPECT_EQ(json["job"], "77");
  ASSERT_EQ(json["ranks"].size(), 1u);
  EXPECT_EQ(json["ranks"][0]["rank"], "");
  EXPECT_EQ(json["ranks"][0]["session"], "7");
  EXPECT_EQ(json["sessions"][0]["name"], "of 1001 remote job 77");
  EXPECT_EQ(json["nodes"][1]["name"], "nvjet");
  EXPECT_EQ(json["verdict"], nullptr);
  EXPECT_THAT(json["no_verdict"].get<std::string>(),
              ::testing::StartsWith("session 7 has no per-kernel times: "));
  const Response alices = AnswerApi("/api/job", "job=77", SignIn(kAliceToken));
  EXPECT_EQ(alices.status, 404);
  EXPECT_THAT(nlohmann::json::parse(alices.body)["error"].get<std::string>(),
              ::testing::AllOf(::testing::StartsWith("no node has a session of job 77: "),
                               ::testing::EndsWith(": no session of job 77 here")));
  EXPECT_EQ(AnswerApi("/api/job", "", SignIn(kJobToken)).status, 400);
}

// protonctl export's file, read as the token's user; a trace of a tree session is refused.
TEST_F(PageRouterTest, ExportIsReadThroughTheTokensUsersSource) {
  const std::string cookie = SignIn(kJobToken);
  const Response file = AnswerApi("/api/export", "session=7&format=folded", cookie);
  ASSERT_EQ(file.status, 200) << file.body;
  EXPECT_EQ(file.content_type, "application/octet-stream");
  EXPECT_EQ(Header(file, "Content-Disposition"), "attachment; filename=\"protond-7.folded\"");
  EXPECT_THAT(file.body, HasSubstr("ROOT;nvjet "));
  const Response chrome = AnswerApi("/api/export", "session=7&format=chrome", cookie);
  EXPECT_EQ(chrome.status, 400);
  EXPECT_EQ(nlohmann::json::parse(chrome.body)["error"],
            "session 7 was not started with --data trace");
  EXPECT_EQ(AnswerApi("/api/export", "session=8&format=folded", cookie).status, 404);
}

TEST_F(PageRouterTest, TopAndStallsAreReadThroughTheTokensUsersSource) {
  const std::string cookie = SignIn(kJobToken);
  const Response top = AnswerApi("/api/top", "session=7&limit=1", cookie);
  ASSERT_EQ(top.status, 200) << top.body;
  const nlohmann::json top_json = nlohmann::json::parse(top.body);
  EXPECT_EQ(top_json["session"]["name"], "of 1001 remote job 77");
  EXPECT_EQ(top_json["kernels"][0]["name"], "nvjet");
  EXPECT_EQ(top_json["kernels"][0]["bound"], "compute");
  const Response stalls = AnswerApi("/api/stalls", "session=7&sass=1", cookie);
  ASSERT_EQ(stalls.status, 200) << stalls.body;
  EXPECT_EQ(nlohmann::json::parse(stalls.body)["instruction_notes"],
            nlohmann::json::array({"with instructions"}));
  // A session the source does not list is a 404 before its tree is read; a bad limit a 400.
  const Response other = AnswerApi("/api/top", "session=8", cookie);
  EXPECT_EQ(other.status, 404);
  EXPECT_EQ(nlohmann::json::parse(other.body)["error"],
            "session 8 does not exist (see protonctl sessions)");
  EXPECT_EQ(AnswerApi("/api/stalls", "session=7&limit=x", cookie).status, 400);
}

// The page shows its sign-out button where /api/page names one: protond's, once signed in.
TEST_F(PageRouterTest, ThePageIsToldWhereToSignOut) {
  const Response page = AnswerApi("/api/page", "", SignIn(kAliceToken));
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(nlohmann::json::parse(page.body), nlohmann::json({{"sign_out", "/sign-out"}}));
  EXPECT_EQ(AnswerApi("/api/page", "", "").status, 401);
}

TEST_F(PageRouterTest, HistoryIsReadThroughTheTokensUsersSource) {
  const std::string cookie = SignIn(kJobToken);
  const Response all = AnswerApi("/api/history", "", cookie);
  ASSERT_EQ(all.status, 200) << all.body;
  const nlohmann::json json = nlohmann::json::parse(all.body);
  ASSERT_EQ(json["windows"].size(), 1u);
  EXPECT_EQ(json["windows"][0]["who"], "job of 1001");
  EXPECT_EQ(json["total_windows"], 1);
  const Response none = AnswerApi("/api/history", "pid=5", cookie);
  EXPECT_EQ(nlohmann::json::parse(none.body)["note"], "the one always-on window does not match");
  const Response bad = AnswerApi("/api/history", "since=2x", cookie);
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(nlohmann::json::parse(bad.body)["error"].get<std::string>(),
              ::testing::StartsWith("bad --since '2x': "));
}

TEST_F(PageRouterTest, AWrongTokenGetsTheFormAgainWithoutItsText) {
  const std::string wrong = "wrong-token-0123456789abcdef<b>";
  const Response answer = Answer("POST", "/sign-in", "", "token=" + wrong);
  EXPECT_EQ(answer.status, 401);
  EXPECT_EQ(Header(answer, "Set-Cookie"), "");
  EXPECT_THAT(answer.body, HasSubstr("this token is not accepted here"));
  EXPECT_THAT(answer.body, Not(HasSubstr("wrong-token")));
  EXPECT_EQ(Answer("POST", "/sign-in", "", "").status, 401);
}

TEST_F(PageRouterTest, TheCookieLastsAsLongAsItsToken) {
  const Response answer = Answer("POST", "/sign-in", "", absl::StrCat("token=", kJobToken));
  EXPECT_THAT(Header(answer, "Set-Cookie"),
              HasSubstr(absl::StrCat("; Max-Age=", absl::ToInt64Seconds(kJobTokenExpires - kNow))));
  const std::string set_cookie = Header(answer, "Set-Cookie");
  const std::string cookie = set_cookie.substr(0, set_cookie.find(';'));
  const Request api{"GET", "/api/sessions", "", cookie, "", ""};
  EXPECT_EQ(router_->Answer(api, kJobTokenExpires - absl::Seconds(1)).status, 200);
  EXPECT_EQ(router_->Answer(api, kJobTokenExpires).status, 401);
}

TEST_F(PageRouterTest, SigningOutEndsTheCookiesKey) {
  const std::string cookie = SignIn(kAliceToken);
  const Response out = Answer("POST", "/sign-out", cookie);
  EXPECT_EQ(out.status, 303);
  EXPECT_THAT(Header(out, "Set-Cookie"), HasSubstr("protond_page=; "));
  EXPECT_THAT(Header(out, "Set-Cookie"), HasSubstr("Max-Age=0"));
  EXPECT_EQ(Answer("GET", "/api/sessions", cookie).status, 401);
  EXPECT_EQ(Answer("PUT", "/api/sessions", cookie).status, 405);
}

// Ten wrong tokens in a minute from one address close the form to that address, the right token
// too, until the first of them is a minute old; a page signed in before goes on, and a caller at
// another address still signs in.
TEST_F(PageRouterTest, TenWrongTokensInAMinuteMakeThatAddressWait) {
  const std::string signed_in = SignIn(kAliceToken);
  Request wrong{"POST", "/sign-in", "", "", "", "token=guess-0123456789abcdef"};
  wrong.peer_address = "203.0.113.7";
  for (int i = 0; i < page_server::SignInThrottle::kMaxFailuresPerCaller; ++i) {
    EXPECT_EQ(router_->Answer(wrong, kNow + absl::Seconds(i)).status, 401) << i;
  }
  Request right{"POST", "/sign-in", "", "", "", absl::StrCat("token=", kAliceToken)};
  right.peer_address = wrong.peer_address;
  const Response waiting = router_->Answer(right, kNow + absl::Seconds(20));
  EXPECT_EQ(waiting.status, 429);
  EXPECT_EQ(Header(waiting, "Retry-After"), "40");
  EXPECT_THAT(waiting.body,
              HasSubstr("too many wrong tokens in the last minute: try again in 40 s"));
  EXPECT_EQ(Header(waiting, "Set-Cookie"), "");
  EXPECT_EQ(Answer("GET", "/api/sessions", signed_in).status, 200);
  Request elsewhere = right;
  elsewhere.peer_address = "198.51.100.20";
  EXPECT_EQ(router_->Answer(elsewhere, kNow + absl::Seconds(20)).status, 303);
  EXPECT_EQ(router_->Answer(right, kNow + absl::Seconds(60)).status, 303);
}

// A browser sends Origin with each POST: another site's page may not sign it in or out.
TEST_F(PageRouterTest, APostFromAnotherSitesPageIsRefused) {
  const std::string cookie = SignIn(kAliceToken);
  Request sign_in{"POST", "/sign-in", "", "", "", absl::StrCat("token=", kAliceToken)};
  sign_in.host = "node01:8443";
  sign_in.origin = "https://evil.example";
  const Response refused = router_->Answer(sign_in, kNow);
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body, "refused: a /sign-in from another site's page (https://evil.example)\n");
  EXPECT_EQ(Header(refused, "Set-Cookie"), "");
  sign_in.origin = "null";  // a sandboxed frame
  EXPECT_EQ(router_->Answer(sign_in, kNow).status, 403);
  Request sign_out{"POST", "/sign-out", "", cookie, "", ""};
  sign_out.host = "node01:8443";
  sign_out.origin = "https://evil.example";
  EXPECT_EQ(router_->Answer(sign_out, kNow).status, 403);
  EXPECT_EQ(Answer("GET", "/api/sessions", cookie).status, 200);
  // The page's own form: Origin names this server, as the Host header does.
  sign_in.origin = "https://NODE01:8443";
  EXPECT_EQ(router_->Answer(sign_in, kNow).status, 303);
}

// protond read its tokens again (SIGHUP): every page signs in again, and a removed token cannot.
TEST_F(PageRouterTest, AfterTheTokensAreReadAgainARemovedTokenCannotSignIn) {
  const std::string alice = SignIn(kAliceToken);
  const std::string job = SignIn(kJobToken);
  WriteTokens(absl::StrCat(kJobToken, " 1001 jobs=77\n"));
  ASSERT_TRUE(tokens_->Reload().ok());
  router_->SignOutAll();
  EXPECT_EQ(Answer("GET", "/api/sessions", alice).status, 401);
  EXPECT_EQ(Answer("GET", "/api/sessions", job).status, 401);
  EXPECT_EQ(Answer("POST", "/sign-in", "", absl::StrCat("token=", kAliceToken)).status, 401);
  EXPECT_EQ(Answer("GET", "/api/sessions", SignIn(kJobToken)).status, 200);
}

}  // namespace
}  // namespace protond::web
