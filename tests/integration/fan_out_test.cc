// protonctl --hosts against two real protond on loopback (each with --listen on its own port):
// a job whose ranks run under both is started and stopped on both at once, read as one tree with
// the per-rank spread (by `tree --job` and by `protonctl --hosts ... ui`'s /api/job alike), and
// still read, less the missing node, when one daemon is gone.
#include <signal.h>
#include <sys/stat.h>

#include <array>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/harness.h"
#include "tests/integration/tree_cells.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kToken[] = "fan-out-token-0123456789abcdef";

class FanOutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"tokens", "token"}) {
      std::ofstream(dir_ + "/" + name)
          << kToken << (std::string(name) == "tokens" ? " root" : "") << "\n";
      chmod((dir_ + "/" + name).c_str(), 0600);
    }
    for (size_t i = 0; i < nodes_.size(); ++i) {
      nodes_[i]->Start({"--listen", "127.0.0.1:0", "--insecure", "--tokens", dir_ + "/tokens"});
      ports_[i] = nodes_[i]->LoggedPort(", port ");
      ASSERT_NE(ports_[i], 0) << ReadFile(nodes_[i]->log_path());
    }
  }

  // A rank of job 5 under node `node`'s daemon, idle until profiled.
  pid_t SpawnRank(size_t node, const std::string& rank) {
    return Spawn({BinDir() + "/sample_workload", "--steps", "300", "--step-ms", "10"}, dir_,
                 {{{"LD_PRELOAD", BinDir() + "/libprotond_shim.so"},
                   {"PROTOND_SOCKET", nodes_[node]->socket()},
                   {"SLURM_JOB_ID", "5"},
                   {"RANK", rank}}});
  }

  std::string Hosts() const {
    return "127.0.0.1:[" + std::to_string(ports_[0]) + "," + std::to_string(ports_[1]) + "]";
  }

  Completed OnHosts(std::vector<std::string> args) {
    std::vector<std::string> argv = {BinDir() + "/protonctl", "--hosts",       Hosts(),
                                     "--token-file",          dir_ + "/token", "--insecure"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunToEnd(argv, dir_);
  }

  // Until `count` processes of job 5 are listed over all hosts.
  bool WaitRegistered(size_t count) {
    for (int i = 0; i < 100; ++i) {
      const std::string out = OnHosts({"processes"}).out;
      size_t listed = 0;
      for (size_t at = out.find("sample_workload"); at != std::string::npos;
           at = out.find("sample_workload", at + 1)) {
        ++listed;
      }
      if (listed == count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // `protonctl --hosts ... ui` over both nodes, serving a stub page: its port and token.
  void StartUi() {
    ASSERT_EQ(mkdir((dir_ + "/web").c_str(), 0755), 0);
    std::ofstream(dir_ + "/web/index.html") << "<html>the page</html>";
    ui_ = Spawn({BinDir() + "/protonctl", "--hosts", Hosts(), "--token-file", dir_ + "/token",
                 "--insecure", "ui", "--port", "0", "--web-dir", dir_ + "/web"},
                dir_);
    std::string printed;
    for (int i = 0; i < 400 && printed.find('\n') == std::string::npos; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      printed = SpawnedOutput(ui_, dir_);
    }
    const std::string prefix = "protonctl ui: http://127.0.0.1:";
    const size_t slash = printed.find("/?token=");
    ASSERT_EQ(printed.rfind(prefix, 0), 0u) << printed;
    ASSERT_TRUE(absl::SimpleAtoi(printed.substr(prefix.size(), slash - prefix.size()), &ui_port_));
    ui_token_ = printed.substr(slash + 8, printed.find('\n') - slash - 8);
  }

  // The page's answer to GET `target`, with the ui's token; `status` is checked.
  nlohmann::json UiJson(const std::string& target, int status) {
    const std::string raw = ExchangeOnLoopback(
        ui_port_, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                      ui_token_ + "\r\n\r\n");
    EXPECT_EQ(raw.substr(0, 12), "HTTP/1.1 " + std::to_string(status)) << raw;
    const size_t body = raw.find("\r\n\r\n");
    return nlohmann::json::parse(raw.substr(body == std::string::npos ? raw.size() : body + 4),
                                 nullptr, /*allow_exceptions=*/false);
  }

  std::string dir_ = MakeTempDir();
  pid_t ui_ = -1;
  int ui_port_ = 0;
  std::string ui_token_;
  Daemon node_a_{MakeTempDir()};
  Daemon node_b_{MakeTempDir()};
  std::array<Daemon*, 2> nodes_ = {&node_a_, &node_b_};
  std::array<int, 2> ports_ = {0, 0};
};

TEST_F(FanOutTest, AJobOnTwoNodesIsStartedStoppedAndReadAsOneTree) {
  const std::vector<pid_t> ranks = {SpawnRank(0, "0"), SpawnRank(0, "1"), SpawnRank(1, "2")};
  ASSERT_TRUE(WaitRegistered(3));
  const Completed start = OnHosts({"start", "--job", "5", "--name", "fan"});
  ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
  EXPECT_THAT(start.out, HasSubstr("== 127.0.0.1:" + std::to_string(ports_[0]) +
                                   "\nsession 1 (fan): recording 2 of 2 processes"));
  EXPECT_THAT(start.out, HasSubstr("== 127.0.0.1:" + std::to_string(ports_[1]) +
                                   "\nsession 1 (fan): recording 1 of 1 process"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const Completed stop = OnHosts({"stop", "--job", "5"});
  ASSERT_EQ(stop.exit_code, 0) << stop.out << stop.err;

  const Completed tree = OnHosts({"tree", "--job", "5", "-m", "count"});
  ASSERT_EQ(tree.exit_code, 0) << tree.out << tree.err;
  const std::string a = "127.0.0.1:" + std::to_string(ports_[0]);
  const std::string b = "127.0.0.1:" + std::to_string(ports_[1]);
  EXPECT_THAT(tree.out, HasSubstr("job 5: 3 ranks (0@" + a + ", 1@" + a + ", 2@" + b +
                                  "); count per rank\n"));
  EXPECT_THAT(tree.out, HasSubstr("count total  min  median  max  slowest rank  ranks\n"));
  // Every rank ran the same 10 ms steps for the same half second: the step line has all three.
  EXPECT_THAT(tree.out, HasSubstr("      3     └─ step\n"));

  // The page over both nodes: the same cells, ranks and (a tree session's) missing verdict.
  StartUi();
  const nlohmann::json job = UiJson("/api/job?job=5&metrics=count", 200);
  const size_t heading_end = tree.out.find('\n');
  const size_t tree_end = tree.out.find("\n\n");
  ASSERT_NE(tree_end, std::string::npos) << tree.out;
  ExpectSameCells(job, tree.out.substr(heading_end + 1, tree_end - heading_end));
  EXPECT_EQ(job["ranks"],
            nlohmann::json::parse(R"([{"rank": "0", "host": ")" + a +
                                  R"(", "session": "1"}, {"rank": "1", "host": ")" + a +
                                  R"(", "session": "1"}, {"rank": "2", "host": ")" + b +
                                  R"(", "session": "1"}])"));
  EXPECT_EQ("no verdict: " + job["no_verdict"].get<std::string>() + "\n",
            tree.out.substr(tree_end + 2));
  EXPECT_THAT(UiJson("/api/sessions", 404)["error"].get<std::string>(),
              HasSubstr("serves the Job page only"));

  nodes_[1]->Kill(SIGKILL);
  const Completed partial = OnHosts({"tree", "--job", "5", "-m", "count"});
  EXPECT_EQ(partial.exit_code, 1);
  EXPECT_THAT(partial.out, HasSubstr("job 5: 2 ranks (0@" + a + ", 1@" + a + ")"));
  EXPECT_THAT(partial.err,
              HasSubstr("protonctl: left out " + b + ": protond at " + b + " does not answer"));
  const nlohmann::json partial_job = UiJson("/api/job?job=5&metrics=count", 200);
  EXPECT_EQ(partial_job["ranks"].size(), 2u);
  ASSERT_EQ(partial_job["problems"].size(), 1u);
  // As the CLI names it (the reason after it is gRPC's: its channel's socket closed).
  EXPECT_THAT(partial_job["problems"][0].get<std::string>(),
              ::testing::StartsWith(b + ": protond at " + b + " does not answer ("));
  kill(ui_, SIGTERM);
  EXPECT_EQ(Wait(ui_, dir_).exit_code, 0);
  const Completed sessions = OnHosts({"sessions"});
  EXPECT_EQ(sessions.exit_code, 1);
  EXPECT_THAT(sessions.out, HasSubstr("== " + a + "\nID  NAME"));
  EXPECT_THAT(sessions.err, HasSubstr("protonctl: 1 of 2 hosts failed: " + b + " (exit 1)"));
  for (pid_t pid : ranks) {
    kill(pid, SIGKILL);
    Wait(pid, dir_);
  }
}

TEST_F(FanOutTest, ABadHostlistIsNamed) {
  const Completed bad = RunToEnd(
      {BinDir() + "/protonctl", "--hosts", "node[1-", "--token-file", dir_ + "/token", "sessions"},
      dir_);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--hosts 'node[1-': a '[' without its ']'"));
}

}  // namespace
}  // namespace protond::testing
