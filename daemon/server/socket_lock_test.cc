#include "daemon/server/socket_lock.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

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

}  // namespace
}  // namespace protond::server
