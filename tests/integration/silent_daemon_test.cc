// protonctl against a daemon that is there but does not answer (stopped, or too busy to): it is
// waited for a few seconds, then named as not answering, never as absent.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

class SilentDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override { daemon_.Start(); }
  void TearDown() override { daemon_.Signal(SIGCONT); }

  pid_t StartSessionsCommand() {
    return Spawn({BinDir() + "/protonctl", "--socket", daemon_.socket(), "sessions"}, dir_);
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
};

// 13 of 200 concurrent `protonctl sessions` on a loaded machine said "protond at S does not
// answer (...); start one with: protond --socket S ..." after 0.1 s, and `protonctl run` ran its
// program unprofiled.
TEST_F(SilentDaemonTest, AStoppedDaemonIsNamedAsNotAnswering) {
  daemon_.Signal(SIGSTOP);
  const auto began = Clock::now();
  const Completed sessions = Wait(StartSessionsCommand(), dir_);
  const auto waited = Clock::now() - began;
  EXPECT_EQ(sessions.exit_code, 1);
  EXPECT_EQ(sessions.err, "protonctl: protond (pid " + std::to_string(daemon_.pid()) + ") at " +
                              daemon_.socket() + " is not answering (stopped or overloaded)\n");
  EXPECT_GE(waited, std::chrono::seconds(4));
  EXPECT_LT(waited, std::chrono::seconds(15));
}

// A daemon busy with many clients at once answers each within the wait: gRPC gave a connection
// 0.1 s for the daemon's greeting, and 93 of 200 failed so on the 2-core development VM.
TEST_F(SilentDaemonTest, TwoHundredCommandsAtOnceAreAllAnswered) {
  std::vector<std::pair<pid_t, std::string>> commands;
  for (int i = 0; i < 200; ++i) {
    const std::string own_dir = dir_ + "/" + std::to_string(i);  // for its own output files
    std::filesystem::create_directory(own_dir);
    commands.emplace_back(
        Spawn({BinDir() + "/protonctl", "--socket", daemon_.socket(), "sessions"}, own_dir),
        own_dir);
  }
  int failed = 0;
  for (const auto& [pid, own_dir] : commands) {
    const Completed done = Wait(pid, own_dir);
    if (done.exit_code != 0) ADD_FAILURE() << "#" << ++failed << ": " << done.err;
  }
  EXPECT_EQ(failed, 0);
}

TEST_F(SilentDaemonTest, ADaemonStoppedForASecondGetsTheCommandAnswered) {
  daemon_.Signal(SIGSTOP);
  const pid_t sessions = StartSessionsCommand();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  daemon_.Signal(SIGCONT);
  const Completed done = Wait(sessions, dir_);
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_THAT(done.out, HasSubstr("ID  NAME"));
  EXPECT_EQ(done.err, "");
}

TEST_F(SilentDaemonTest, RunProfilesAProgramStartedWhileTheDaemonIsStoppedForASecond) {
  daemon_.Signal(SIGSTOP);
  const pid_t run = Spawn({BinDir() + "/protonctl", "--socket", daemon_.socket(), "run", "--name",
                           "waited", "--", BinDir() + "/sample_workload", "--steps", "2"},
                          dir_);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  daemon_.Signal(SIGCONT);
  const Completed done = Wait(run, dir_);
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_THAT(done.err, HasSubstr("protonctl: session 1 (waited): "));
  EXPECT_THAT(done.err, Not(HasSubstr("without profiling")));
}

}  // namespace
}  // namespace protond::testing
