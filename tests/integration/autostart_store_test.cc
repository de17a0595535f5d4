// The daemon autostarted at a socket after its last daemon died keeps that daemon's store, so the
// sessions recorded before are found again; a store it cannot take is named.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> RunSampleAs(const std::string& socket, const std::string& name) {
  return {BinDir() + "/protonctl",       "--socket", socket, "run", "--name", name, "--",
          BinDir() + "/sample_workload", "--steps",  "2"};
}

pid_t PidInFile(const std::string& path) {
  std::ifstream file(path);
  pid_t pid = 0;
  file >> pid;
  return pid;
}

// A user's `protond --socket S --state-dir D` was SIGKILLed; `protonctl run` then started one
// with its store in S.state, and the user's sessions were gone from `protonctl sessions`.
TEST(AutostartStoreTest, ADaemonStartedAfterAKilledOneKeepsItsStore) {
  const std::string dir = MakeTempDir();
  Daemon by_hand(dir);
  by_hand.Start();
  const Completed before = RunToEnd(RunSampleAs(by_hand.socket(), "before"), dir);
  ASSERT_EQ(before.exit_code, 0) << before.err;
  by_hand.Kill(SIGKILL);

  const Completed after = RunToEnd(RunSampleAs(by_hand.socket(), "after"), dir);
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_THAT(after.err, HasSubstr("protonctl: started protond at " + by_hand.socket() +
                                   " (its store and log: " + by_hand.state_dir() + ")\n"));
  const Completed sessions =
      RunToEnd({BinDir() + "/protonctl", "--socket", by_hand.socket(), "sessions"}, dir);
  EXPECT_EQ(sessions.exit_code, 0) << sessions.err;
  EXPECT_THAT(sessions.out, HasSubstr("before"));
  EXPECT_THAT(sessions.out, HasSubstr("after"));
  EXPECT_FALSE(std::filesystem::exists(by_hand.socket() + ".state"));
  StopDetachedDaemon(PidInFile(by_hand.state_dir() + "/protond.pid"));
}

// The store is in use by a daemon at another socket now: autostart says so, naming the store and
// that daemon, and the program runs unprofiled.
TEST(AutostartStoreTest, AStoreAnotherDaemonHoldsIsNamed) {
  const std::string dir = MakeTempDir();
  Daemon by_hand(dir);
  by_hand.Start();
  by_hand.Kill(SIGKILL);
  const std::string other_dir = dir + "/other";  // for its output, apart from protonctl's
  std::filesystem::create_directories(other_dir);
  const std::string other_socket = other_dir + "/protond.sock";
  const pid_t other =
      Spawn({BinDir() + "/protond", "--socket", other_socket, "--state-dir", by_hand.state_dir()},
            other_dir);
  for (int i = 0; i < 200 && !client::Client(other_socket).ListSessions().ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }

  const Completed run = RunToEnd(RunSampleAs(by_hand.socket(), "after"), dir);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("another protond (pid " + std::to_string(other) + ", socket " +
                                 other_socket + ") uses the store in " + by_hand.state_dir()));
  EXPECT_THAT(run.err,
              HasSubstr("protonctl: running " + BinDir() + "/sample_workload without profiling"));
  EXPECT_FALSE(std::filesystem::exists(by_hand.socket() + ".state"));
  kill(other, SIGTERM);
  Wait(other, other_dir);
}

}  // namespace
}  // namespace protond::testing
