// protonctl --hosts against two real protond on loopback (each with --listen on its own port):
// a job whose ranks run under both is started and stopped on both at once, read as one tree with
// the per-rank spread, and still read, less the missing node, when one daemon is gone.
#include <signal.h>
#include <sys/stat.h>

#include <array>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

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

  std::string dir_ = MakeTempDir();
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

  nodes_[1]->Kill(SIGKILL);
  const Completed partial = OnHosts({"tree", "--job", "5", "-m", "count"});
  EXPECT_EQ(partial.exit_code, 1);
  EXPECT_THAT(partial.out, HasSubstr("job 5: 2 ranks (0@" + a + ", 1@" + a + ")"));
  EXPECT_THAT(partial.err,
              HasSubstr("protonctl: left out " + b + ": protond at " + b + " does not answer"));
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
