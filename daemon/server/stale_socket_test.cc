#include "daemon/server/stale_socket.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace protond::server {
namespace {

class StaleSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/protond_stale_socket_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/protond.sock";
    address_.sun_family = AF_UNIX;
    std::strcpy(address_.sun_path, path_.c_str());
  }
  void TearDown() override {
    if (fd_ >= 0) close(fd_);
    std::filesystem::remove_all(dir_);
  }

  // A socket file at the path, listening or not (a daemon that died leaves one that is not).
  void BindSocket(bool listening) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_EQ(bind(fd_, reinterpret_cast<const sockaddr*>(&address_), sizeof(address_)), 0);
    if (listening) {
      ASSERT_EQ(listen(fd_, 1), 0);
    } else {
      close(fd_);
      fd_ = -1;
    }
  }

  bool Exists() const { return std::filesystem::exists(std::filesystem::symlink_status(path_)); }

  std::string dir_;
  std::string path_;
  sockaddr_un address_{};
  int fd_ = -1;
};

TEST_F(StaleSocketTest, NothingThereIsFree) { EXPECT_TRUE(RemoveStaleSocket(address_).ok()); }

TEST_F(StaleSocketTest, AStaleSocketIsRemoved) {
  BindSocket(/*listening=*/false);
  ASSERT_TRUE(Exists());
  EXPECT_TRUE(RemoveStaleSocket(address_).ok());
  EXPECT_FALSE(Exists());
}

TEST_F(StaleSocketTest, ALiveSocketIsKept) {
  BindSocket(/*listening=*/true);
  const absl::Status refused = RemoveStaleSocket(address_);
  EXPECT_EQ(refused.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(refused.message(), "a protond already listens at " + path_);
  EXPECT_TRUE(Exists());
}

TEST_F(StaleSocketTest, ARegularFileIsRefusedAndKept) {
  std::ofstream(path_) << "precious\n";
  const absl::Status refused = RemoveStaleSocket(address_);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), path_ + " is a regular file, not protond's socket");
  std::stringstream kept;
  kept << std::ifstream(path_).rdbuf();
  EXPECT_EQ(kept.str(), "precious\n");
}

TEST_F(StaleSocketTest, ADirectoryOrALinkIsRefusedAndKept) {
  ASSERT_EQ(mkdir(path_.c_str(), 0700), 0);
  EXPECT_EQ(RemoveStaleSocket(address_).message(), path_ + " is a directory, not protond's socket");
  EXPECT_TRUE(Exists());
  ASSERT_EQ(rmdir(path_.c_str()), 0);
  // A link to a stale socket is still a link: what it points at is not protond's to remove.
  const std::string target = dir_ + "/elsewhere.sock";
  ASSERT_EQ(symlink(target.c_str(), path_.c_str()), 0);
  EXPECT_EQ(RemoveStaleSocket(address_).message(),
            path_ + " is a symbolic link, not protond's socket");
  EXPECT_TRUE(Exists());
}

TEST_F(StaleSocketTest, AnotherUsersStaleSocketIsRefusedAndKept) {
  BindSocket(/*listening=*/false);
  if (geteuid() != 0) GTEST_SKIP() << "giving the socket to another user needs root";
  ASSERT_EQ(chown(path_.c_str(), 65534, 65534), 0);
  EXPECT_EQ(RemoveStaleSocket(address_).message(),
            path_ + " is a socket of uid 65534, not protond's socket (protond runs as uid 0)");
  EXPECT_TRUE(Exists());
}

}  // namespace
}  // namespace protond::server
