// The files protond finds at the paths a user gives it (--socket, PROTOND_SOCKET, --state-dir):
// it runs as root on shared nodes, so what is not its own is refused and kept, never deleted or
// written through.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;

void MakeFile(const std::string& path, const std::string& contents) {
  std::ofstream(path) << contents;
}

TEST(DaemonPathsTest, ARegularFileAtTheSocketPathIsRefusedAndKept) {
  const std::string dir = MakeTempDir();
  const std::string socket = dir + "/protond.sock";
  MakeFile(socket, "precious\n");
  // Bounded: a protond that took the path would serve it until stopped.
  const Completed started = RunToEnd({"/usr/bin/timeout", "10", BinDir() + "/protond", "--socket",
                                      socket, "--state-dir", dir + "/state"},
                                     dir);
  EXPECT_EQ(started.exit_code, 1);
  EXPECT_THAT(started.err, HasSubstr("protond: " + socket +
                                     " is a regular file, not protond's "
                                     "socket\n"));
  EXPECT_EQ(ReadFile(socket), "precious\n");
}

// A program's session start autostarts `protond --socket $PROTOND_SOCKET`, which must not delete
// the file either; the program runs on, saying why it is not profiled.
TEST(DaemonPathsTest, AutostartKeepsARegularFileAtProtondSocket) {
  const std::string dir = MakeTempDir();
  const std::string socket = dir + "/protond.sock";
  MakeFile(socket, "precious\n");
  const Completed run = RunToEnd({BinDir() + "/session_api_workload", dir + "/out.hatchet"}, dir,
                                 {{{"PROTOND_SOCKET", socket}}});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out,
              HasSubstr("protond: " + socket + " is a regular file, not protond's socket"));
  EXPECT_EQ(ReadFile(socket), "precious\n");
}

// The once-a-second check that binds a removed socket again leaves a file put in its place alone
// (and says so once); once that file is gone, it binds the path again.
TEST(DaemonPathsTest, TheSocketWatchdogKeepsAFilePutWhereTheSocketWas) {
  const std::string dir = MakeTempDir();
  Daemon daemon(dir);
  daemon.Start();
  ASSERT_EQ(unlink(daemon.socket().c_str()), 0);
  MakeFile(daemon.socket(), "precious\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // two checks and a half
  EXPECT_EQ(ReadFile(daemon.socket()), "precious\n");
  EXPECT_THAT(ReadFile(daemon.log_path()),
              HasSubstr("protond: " + daemon.socket() +
                        " is no longer this daemon's socket, and: " + daemon.socket() +
                        " is a regular file, not protond's socket\n"));
  ASSERT_EQ(unlink(daemon.socket().c_str()), 0);
  bool answers = false;
  for (int attempt = 0; attempt < 30 && !answers; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    answers = client::Client(daemon.socket(), std::chrono::seconds(1)).ListSessions().ok();
  }
  EXPECT_TRUE(answers) << "the daemon did not bind its path again within 3 s";
}

// protond.pid in a --state-dir someone else could write: a link planted there is replaced, and
// what it pointed at is not written.
TEST(DaemonPathsTest, ThePidFileIsNotWrittenThroughALink) {
  const std::string dir = MakeTempDir();
  Daemon daemon(dir);
  const std::string victim = dir + "/victim";
  MakeFile(victim, "precious\n");
  std::filesystem::create_directories(daemon.state_dir());
  const std::string pid_file = daemon.state_dir() + "/protond.pid";
  ASSERT_EQ(symlink(victim.c_str(), pid_file.c_str()), 0);
  daemon.Start();
  // The pid file is written after the socket answers, before the daemon says it listens.
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (ReadFile(daemon.log_path()).find("protond: listening at") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(ReadFile(victim), "precious\n");
  EXPECT_FALSE(std::filesystem::is_symlink(pid_file));
  EXPECT_EQ(ReadFile(pid_file), std::to_string(daemon.pid()) + "\n");
}

}  // namespace
}  // namespace protond::testing
