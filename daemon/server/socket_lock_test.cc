#include "daemon/server/socket_lock.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/paths/daemon_paths.h"
#include "gtest/gtest.h"

namespace protond::server {
namespace {

// The lock file's path is as user-chosen as the socket's (`--socket PATH` gives PATH.lock): a
// link planted there would have a root daemon create or lock the link's target.
TEST(SocketLockTest, ALinkPlantedAtTheLockFileIsNotFollowed) {
  char pattern[] = "/tmp/protond_socket_lock_test.XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string socket = dir + "/protond.sock";
  const std::string target = dir + "/created-through-the-link";
  ASSERT_EQ(symlink(target.c_str(), (socket + ".lock").c_str()), 0);
  const absl::StatusOr<SocketLock> lock = SocketLock::Acquire(socket);
  EXPECT_EQ(lock.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(lock.status().message(), socket + ".lock is a symbolic link, not protond's lock file");
  EXPECT_FALSE(std::filesystem::exists(target));
  std::filesystem::remove_all(dir);
}

std::string Contents(const std::string& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// What the daemon records is what autostart reads back, after the daemon is gone: its store,
// absolute. A daemon started by hand with --state-dir D and killed was followed by one autostarted
// with its store in <socket>.state, and the user's sessions seemed lost.
TEST(SocketLockTest, TheRecordedStoreIsTheOneAutostartKeeps) {
  char pattern[] = "/tmp/protond_socket_lock_test.XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string socket = dir + "/protond.sock";
  EXPECT_EQ(paths::StateDirForSocket(socket), socket + ".state");  // nothing recorded yet
  {
    const absl::StatusOr<SocketLock> lock = SocketLock::Acquire(socket);
    ASSERT_TRUE(lock.ok()) << lock.status();
    ASSERT_TRUE(lock->Record(dir + "/old/../state").ok());
    EXPECT_EQ(Contents(socket + ".lock"), std::to_string(getpid()) + " " + dir + "/state\n");
  }
  EXPECT_EQ(paths::StateDirForSocket(socket), dir + "/state");
  // Another user's file is not trusted: whoever may write beside the socket could plant one.
  if (geteuid() == 0) {
    ASSERT_EQ(chown((socket + ".lock").c_str(), 65534, 65534), 0);
    EXPECT_EQ(paths::StateDirForSocket(socket), socket + ".state");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace protond::server
