// The files protond finds at the paths a user gives it (--state-dir): it runs as root on shared
// nodes, so what is not its own is refused and kept, never deleted or written through.
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
