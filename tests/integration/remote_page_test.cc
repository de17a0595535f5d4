// protond --web-listen against a real daemon on loopback: the page over HTTPS with --listen's
// certificate (openssl makes it), signed in with a token of --tokens through the form, and the
// API as that token's user. curl is the browser: it checks the certificate, posts the form from a
// file (the token is never in an address or an argument), and sends the cookie back.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/harness.h"
#include "tests/integration/tree_cells.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kRootToken[] = "root-token-0123456789abcdef";
constexpr char kJobToken[] = "job-77-token-0123456789abcdef";
constexpr char kWrongToken[] = "wrong-token-0123456789abcdef";

struct HttpsAnswer {
  int status = 0;
  std::string head;  // the status line and headers
  std::string body;
};

class RemotePageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MakeLoopbackCertificate(dir_);
    // Root, and root limited to job 77: the API's checks are the TCP API's, so the second sees
    // only the sessions of job 77's processes.
    WritePrivateFile(dir_ + "/tokens",
                     absl::StrCat(kRootToken, " root\n", kJobToken, " 0 jobs=77\n"));
    for (const char* token : {kRootToken, kJobToken, kWrongToken}) {
      WritePrivateFile(dir_ + "/" + token, token);  // no newline: the form posts it as it is
    }
    ASSERT_EQ(mkdir((dir_ + "/web").c_str(), 0755), 0);
    std::ofstream(dir_ + "/web/index.html") << "<html>the page</html>";
  }

  void StartWithWebPage() {
    daemon_.Start({"--listen", "127.0.0.1:0", "--tls-cert", dir_ + "/cert.pem", "--tls-key",
                   dir_ + "/key.pem", "--tokens", dir_ + "/tokens", "--web-listen", "127.0.0.1:0",
                   "--web-dir", dir_ + "/web"});
    port_ = daemon_.LoggedPort("web port ");
    ASSERT_NE(port_, 0) << ReadFile(daemon_.log_path());
  }

  // A session of sample_workload run as a task of Slurm job `job`.
  void Record(const std::string& job) {
    const Completed run =
        RunToEnd({BinDir() + "/protonctl", "--socket", daemon_.socket(), "run", "--name",
                  "job " + job, "--", BinDir() + "/sample_workload", "--steps", "2"},
                 dir_, {{{"SLURM_JOB_ID", job}}});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }

  // What `protonctl ARGS` prints (it must succeed), through the daemon's socket.
  std::string Protonctl(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BinDir() + "/protonctl", "--socket", daemon_.socket()};
    argv.insert(argv.end(), args.begin(), args.end());
    const Completed done = RunToEnd(argv, dir_);
    EXPECT_EQ(done.exit_code, 0) << done.err;
    return done.out;
  }

  // curl over HTTPS to the page's port, the certificate checked against the test's own.
  HttpsAnswer Curl(const std::string& path, std::vector<std::string> options = {}) {
    std::vector<std::string> argv = {
        "/usr/bin/curl", "-sS", "--cacert",    dir_ + "/cert.pem", "-D", dir_ + "/head", "-o",
        dir_ + "/body",  "-w",  "%{http_code}"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(absl::StrCat("https://127.0.0.1:", port_, path));
    const Completed done = RunToEnd(argv, dir_);
    EXPECT_EQ(done.exit_code, 0) << done.err;
    HttpsAnswer answer{0, ReadFile(dir_ + "/head"), ReadFile(dir_ + "/body")};
    EXPECT_TRUE(absl::SimpleAtoi(done.out, &answer.status)) << done.out;
    return answer;
  }

  // Posts the sign-in form with the token in file `token_file`; the answer.
  HttpsAnswer SignIn(const std::string& token_file) {
    return Curl("/sign-in", {"--data-urlencode", "token@" + dir_ + "/" + token_file});
  }

  // Signs in with the token in `token_file`: the Cookie header to send from then on.
  std::string CookieFor(const std::string& token_file) {
    const HttpsAnswer signed_in = SignIn(token_file);
    EXPECT_EQ(signed_in.status, 303) << signed_in.head << signed_in.body;
    const size_t at = signed_in.head.find("Set-Cookie: ");
    if (at == std::string::npos) return "";
    const size_t begin = at + std::string("Set-Cookie: ").size();
    return signed_in.head.substr(begin, signed_in.head.find(';', begin) - begin);
  }

  // The ids of the sessions /api/sessions lists with `cookie`.
  std::vector<std::string> SessionIds(const std::string& cookie) {
    const HttpsAnswer listed = Curl("/api/sessions", {"-H", "Cookie: " + cookie});
    EXPECT_EQ(listed.status, 200) << listed.body;
    const nlohmann::json json = nlohmann::json::parse(listed.body);
    std::vector<std::string> ids;
    for (const nlohmann::json& session : json["sessions"]) {
      ids.push_back(session["id"]);
    }
    return ids;
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
  int port_ = 0;
};

TEST_F(RemotePageTest, ATokenSignsInOverHttpsAndSeesOnlyWhatItMay) {
  StartWithWebPage();
  Record("77");  // session 1
  Record("88");  // session 2

  // Not signed in: the form, and 401 for the API.
  const HttpsAnswer form = Curl("/");
  EXPECT_EQ(form.status, 200);
  EXPECT_THAT(form.body, HasSubstr("action=\"/sign-in\""));
  const HttpsAnswer refused = Curl("/api/sessions");
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(nlohmann::json::parse(refused.body)["error"],
            "not signed in: sign in at / with your token");

  const std::string job_cookie = CookieFor(kJobToken);
  EXPECT_THAT(job_cookie, ::testing::MatchesRegex("protond_page=[0-9a-f]{64}"));
  EXPECT_THAT(SessionIds(job_cookie), ::testing::ElementsAre("1"));
  EXPECT_EQ(Curl("/api/tree?session=1&metrics=count", {"-H", "Cookie: " + job_cookie}).status, 200);
  const HttpsAnswer other_job = Curl("/api/tree?session=2", {"-H", "Cookie: " + job_cookie});
  EXPECT_EQ(other_job.status, 404) << other_job.body;
  // Top and stalls: its own session's (the sample workload launches no GPU kernel here), and
  // the other job's is the same 404 as its tree.
  const HttpsAnswer top = Curl("/api/top?session=1&limit=5", {"-H", "Cookie: " + job_cookie});
  ASSERT_EQ(top.status, 200) << top.body;
  EXPECT_EQ(nlohmann::json::parse(top.body)["session"]["id"], "1");
  EXPECT_TRUE(nlohmann::json::parse(top.body).contains("kernels")) << top.body;
  const HttpsAnswer stalls = Curl("/api/stalls?session=1&sass=1", {"-H", "Cookie: " + job_cookie});
  ASSERT_EQ(stalls.status, 200) << stalls.body;
  EXPECT_EQ(nlohmann::json::parse(stalls.body)["note"],
            "no PC samples in this profile (record them with --mode pcsampling)");
  // Export: its own session's Hatchet file as a download, as protonctl export writes it.
  const HttpsAnswer exported =
      Curl("/api/export?session=1&format=hatchet", {"-H", "Cookie: " + job_cookie});
  ASSERT_EQ(exported.status, 200) << exported.body;
  EXPECT_TRUE(nlohmann::json::parse(exported.body).is_array()) << exported.body;
  for (const char* other :
       {"/api/top?session=2", "/api/stalls?session=2", "/api/export?session=2&format=hatchet"}) {
    const HttpsAnswer refused_other = Curl(other, {"-H", "Cookie: " + job_cookie});
    EXPECT_EQ(refused_other.status, 404) << other << refused_other.body;
    EXPECT_EQ(nlohmann::json::parse(refused_other.body)["error"],
              "session 2 does not exist (see protonctl sessions)");
  }
  EXPECT_EQ(Curl("/api/top?session=1&limit=x", {"-H", "Cookie: " + job_cookie}).status, 400);
  // History: this protond runs no --always-on, so there is no window, and protonctl's words say so.
  const HttpsAnswer history = Curl("/api/history?job=77", {"-H", "Cookie: " + job_cookie});
  ASSERT_EQ(history.status, 200) << history.body;
  EXPECT_EQ(nlohmann::json::parse(history.body)["total_windows"], 0);
  EXPECT_THAT(nlohmann::json::parse(history.body)["note"].get<std::string>(),
              HasSubstr("no always-on windows"));
  EXPECT_EQ(Curl("/api/history?since=2x", {"-H", "Cookie: " + job_cookie}).status, 400);
  EXPECT_EQ(Curl("/", {"-H", "Cookie: " + job_cookie}).body, "<html>the page</html>");

  const std::string root_cookie = CookieFor(kRootToken);
  EXPECT_THAT(SessionIds(root_cookie), ::testing::ElementsAre("1", "2"));

  // The page learns where to sign out (its button), and signing out there ends the sign-in.
  const HttpsAnswer page = Curl("/api/page", {"-H", "Cookie: " + job_cookie});
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(nlohmann::json::parse(page.body)["sign_out"], "/sign-out");
  // Signed out, the cookie's key is dead.
  EXPECT_EQ(Curl("/sign-out", {"-X", "POST", "-H", "Cookie: " + job_cookie}).status, 303);
  EXPECT_EQ(Curl("/api/sessions", {"-H", "Cookie: " + job_cookie}).status, 401);
  // No token in the daemon's log.
  for (const char* token : {kRootToken, kJobToken}) {
    EXPECT_THAT(ReadFile(daemon_.log_path()), Not(HasSubstr(token)));
  }
}

// /api/job on protond's own page is `protonctl tree --job` and `protonctl job --job` over the same
// daemon: nccl_kernels_workload's two ranks (it starts itself as RANK 0 and 1) recorded as a trace
// session of job 77. The job token's user sees job 77 and not job 88; root sees both.
TEST_F(RemotePageTest, AJobIsProtonctlTreeJobAndItsVerdict) {
  StartWithWebPage();
  const Completed run =
      RunToEnd({BinDir() + "/protonctl", "--socket", daemon_.socket(), "run", "--data", "trace",
                "--", BinDir() + "/nccl_kernels_workload", "10", "20"},
               dir_, {{{"SLURM_JOB_ID", "77"}}});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;  // session 1
  Record("88");                                       // session 2
  const std::string cookie = CookieFor(kJobToken);
  for (const std::string metrics : {"", "count"}) {
    const HttpsAnswer answer =
        Curl("/api/job?job=77&metrics=" + metrics, {"-H", "Cookie: " + cookie});
    ASSERT_EQ(answer.status, 200) << answer.body;
    const nlohmann::json job = nlohmann::json::parse(answer.body);
    std::vector<std::string> tree_args = {"tree", "--job", "77"};
    if (!metrics.empty()) tree_args.insert(tree_args.end(), {"-m", metrics});
    const std::string printed = Protonctl(tree_args);
    // The heading, the tree, then after a blank line the verdict's lines of `job --job`'s report.
    const size_t heading_end = printed.find('\n');
    const size_t tree_end = printed.find("\n\n");
    ASSERT_NE(tree_end, std::string::npos) << printed;
    ExpectSameCells(job, printed.substr(heading_end + 1, tree_end + 1 - (heading_end + 1)));
    EXPECT_THAT(job["verdict"].get<std::string>(), HasSubstr(printed.substr(tree_end + 2)));
    EXPECT_EQ(job["verdict"], Protonctl({"job", "--job", "77"}));
    ASSERT_EQ(job["ranks"].size(), 2u) << job.dump(1);
    EXPECT_EQ(job["ranks"][0]["rank"], "0");
    EXPECT_EQ(job["ranks"][1]["rank"], "1");
    EXPECT_EQ(job["ranks"][1]["session"], "1");
    EXPECT_EQ(job["problems"], nlohmann::json::array());
  }
  const HttpsAnswer other_job = Curl("/api/job?job=88", {"-H", "Cookie: " + cookie});
  EXPECT_EQ(other_job.status, 404) << other_job.body;
  EXPECT_THAT(nlohmann::json::parse(other_job.body)["error"].get<std::string>(),
              ::testing::EndsWith(": no session of job 88 here"));
  EXPECT_EQ(Curl("/api/job?job=88", {"-H", "Cookie: " + CookieFor(kRootToken)}).status, 200);
}

// A token taken out of --tokens, then SIGHUP: its page is signed out and cannot sign in again,
// and its TCP calls are refused; the token left in works on, and protond says what it did.
TEST_F(RemotePageTest, SighupReadsTheTokensAgain) {
  StartWithWebPage();
  const std::string root_cookie = CookieFor(kRootToken);
  WritePrivateFile(dir_ + "/tokens", absl::StrCat(kJobToken, " 0 jobs=77\n"));
  daemon_.Signal(SIGHUP);
  for (int i = 0; i < 100 && !absl::StrContains(ReadFile(daemon_.log_path()), "SIGHUP: read");
       ++i) {
    usleep(50'000);
  }
  EXPECT_THAT(ReadFile(daemon_.log_path()), HasSubstr("protond: SIGHUP: read 1 tokens from " +
                                                      dir_ + "/tokens; the page's sign-ins ended"));
  EXPECT_EQ(Curl("/api/sessions", {"-H", "Cookie: " + root_cookie}).status, 401);
  EXPECT_EQ(SignIn(kRootToken).status, 401);
  EXPECT_EQ(SessionIds(CookieFor(kJobToken)).size(), 0u);
  const int tcp_port = daemon_.LoggedPort(", port ");
  for (const auto& [token, code] : {std::pair{kRootToken, 1}, std::pair{kJobToken, 0}}) {
    const Completed listed =
        RunToEnd({BinDir() + "/protonctl", "--host", absl::StrCat("127.0.0.1:", tcp_port),
                  "--tls-ca", dir_ + "/cert.pem", "--token-file", dir_ + "/" + token, "sessions"},
                 dir_);
    EXPECT_EQ(listed.exit_code, code) << token << listed.out << listed.err;
  }
  // A file that does not parse keeps the tokens in use.
  WritePrivateFile(dir_ + "/tokens", "short 0\n");
  daemon_.Signal(SIGHUP);
  for (int i = 0; i < 100 && !absl::StrContains(ReadFile(daemon_.log_path()), "kept the tokens");
       ++i) {
    usleep(50'000);
  }
  EXPECT_THAT(ReadFile(daemon_.log_path()), HasSubstr("protond: SIGHUP: kept the tokens in use: "));
  EXPECT_EQ(SignIn(kJobToken).status, 303);
  std::string how;
  EXPECT_TRUE(daemon_.StillRunning(&how)) << how;
}

// curl posting with another site's Origin, as a browser does for that site's form.
TEST_F(RemotePageTest, ASignInFromAnotherSitesPageIsRefused) {
  StartWithWebPage();
  const HttpsAnswer refused =
      Curl("/sign-in", {"-H", "Origin: https://evil.example", "--data-urlencode",
                        "token@" + dir_ + "/" + kJobToken});
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_THAT(refused.head, Not(HasSubstr("Set-Cookie")));
  const HttpsAnswer own = Curl("/sign-in", {"-H", absl::StrCat("Origin: https://127.0.0.1:", port_),
                                            "--data-urlencode", "token@" + dir_ + "/" + kJobToken});
  EXPECT_EQ(own.status, 303) << own.body;
}

TEST_F(RemotePageTest, AWrongTokenAndPlainHttpAreRefused) {
  StartWithWebPage();
  const HttpsAnswer wrong = SignIn(kWrongToken);
  EXPECT_EQ(wrong.status, 401);
  EXPECT_THAT(wrong.head, Not(HasSubstr("Set-Cookie")));
  EXPECT_THAT(wrong.body, HasSubstr("this token is not accepted here"));
  EXPECT_THAT(wrong.body, Not(HasSubstr(kWrongToken)));
  // The port speaks TLS only.
  const Completed plain = RunToEnd({"/usr/bin/curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}",
                                    absl::StrCat("http://127.0.0.1:", port_, "/")},
                                   dir_);
  EXPECT_NE(plain.out, "200");
}

// The sign-in throttle counts by the address the TLS front took the connection from (curl
// --interface: any 127.x.y.z is this machine's), never by a header the client sends: ten wrong
// tokens from 127.0.0.2, each claiming another address in the headers proxies use, close the form
// to 127.0.0.2 only, and 127.0.0.3 still signs in.
TEST_F(RemotePageTest, TheSignInThrottleCountsTheCallersAddressNotAForgedHeader) {
  StartWithWebPage();
  const auto from = [this](const char* address, const char* token_file, int forged) {
    const std::string claimed = absl::StrCat("198.51.100.", forged);
    return Curl("/sign-in", {"--interface", address, "-H", "X-Forwarded-For: " + claimed, "-H",
                             "X-Real-IP: " + claimed, "-H", "Forwarded: for=" + claimed,
                             "--data-urlencode", absl::StrCat("token@", dir_, "/", token_file)});
  };
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(from("127.0.0.2", kWrongToken, i).status, 401) << i;
  }
  const HttpsAnswer waiting = from("127.0.0.2", kJobToken, 10);
  EXPECT_EQ(waiting.status, 429) << waiting.body;
  EXPECT_THAT(waiting.head, HasSubstr("Retry-After: "));
  EXPECT_EQ(from("127.0.0.3", kJobToken, 2).status, 303);
  const std::string log = ReadFile(daemon_.log_path());
  EXPECT_THAT(log, HasSubstr("10 wrong tokens within a minute from 127.0.0.2:"));
  EXPECT_THAT(log, Not(HasSubstr("198.51.100.")));
}

TEST_F(RemotePageTest, BadFlagCombinationsAreRefusedNamingTheFlag) {
  const std::vector<std::string> protond = {BinDir() + "/protond", "--socket",
                                            dir_ + "/protond.sock", "--state-dir", dir_ + "/state"};
  std::vector<std::string> without_listen = protond;
  without_listen.insert(without_listen.end(), {"--web-listen", "127.0.0.1:0"});
  const Completed refused = RunToEnd(without_listen, dir_);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("--web-listen needs --listen"));
  std::vector<std::string> plain_on_all = protond;
  plain_on_all.insert(plain_on_all.end(), {"--listen", "127.0.0.1:0", "--insecure", "--tokens",
                                           dir_ + "/tokens", "--web-listen", "0.0.0.0:0"});
  const Completed plain = RunToEnd(plain_on_all, dir_);
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_THAT(plain.err, HasSubstr("--web-listen 0.0.0.0:0 with --insecure must be a loopback"));
}

}  // namespace
}  // namespace protond::testing
