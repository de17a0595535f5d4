// Hostile input from a profiled process and from another user: the daemon stays up, isolates
// what is bad, and keeps everything else.
#include <pwd.h>
#include <unistd.h>

#include <filesystem>

#include "client-lib/cpp/client.h"
#include "common/control/control_channel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;

TEST(UntrustedInputTest, GarbageInOneLaneMarksItCorruptAndKeepsTheRest) {
  const std::string dir = MakeTempDir();
  Daemon daemon(dir);
  daemon.Start();
  const Completed run = RunToEnd({BinDir() + "/protonctl", "--socket", daemon.socket(), "run", "--",
                                  BinDir() + "/garbage_lane_workload"},
                                 dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("problem: lane 63 of process"));
  client::Client client(daemon.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();  // the daemon is still up
  ASSERT_EQ(sessions->sessions(0).problems_size(), 1);
  EXPECT_THAT(sessions->sessions(0).problems(0),
              HasSubstr("is corrupt (at position 0: record size 43947 is not a positive multiple "
                        "of 8); its later records are ignored"));
  auto tree = client.GetTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  auto nodes = NodesByPath(*tree);
  EXPECT_EQ(nodes["good"].count(), 10u);
  EXPECT_EQ(MetricValue(nodes["good"], "items"), 10);
}

// Registers on a control connection and returns the daemon's first answer.
v1::ControlCommand Register(const std::string& socket, const v1::RegisterRequest& request) {
  absl::StatusOr<int> fd = control::ConnectControl(socket);
  EXPECT_TRUE(fd.ok()) << fd.status();
  v1::ControlCommand answer;
  EXPECT_TRUE(control::WriteFrame(*fd, request).ok());
  absl::StatusOr<bool> read = control::ReadFrame(*fd, &answer);
  EXPECT_TRUE(read.ok() && *read) << read.status();
  close(*fd);
  return answer;
}

TEST(UntrustedInputTest, RegistrationThatLiesAboutPidOrUidIsRefused) {
  const std::string dir = MakeTempDir();
  Daemon daemon(dir);
  daemon.Start();
  v1::RegisterRequest request;
  request.set_pid(getpid() + 1);
  request.set_uid(getuid());
  v1::ControlCommand answer = Register(daemon.socket(), request);
  EXPECT_EQ(answer.refused().code(), static_cast<int>(absl::StatusCode::kPermissionDenied));
  EXPECT_EQ(answer.refused().message(),
            "registration claims pid " + std::to_string(getpid() + 1) + " uid " +
                std::to_string(getuid()) + " but the connection belongs to pid " +
                std::to_string(getpid()) + " uid " + std::to_string(getuid()));
  request.set_pid(getpid());
  request.set_uid(getuid() + 1);
  EXPECT_EQ(Register(daemon.socket(), request).refused().code(),
            static_cast<int>(absl::StatusCode::kPermissionDenied));
  // The right identity, but no region behind the descriptor it names.
  request.set_uid(getuid());
  request.set_region_fd(9999);
  request.set_region_bytes(4096);
  answer = Register(daemon.socket(), request);
  EXPECT_EQ(answer.refused().code(), static_cast<int>(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(answer.refused().message(), HasSubstr("cannot open the region of process"));
  // Not a registration at all: the magic, then bytes that are no frame.
  absl::StatusOr<int> fd = control::ConnectControl(daemon.socket());
  ASSERT_TRUE(fd.ok()) << fd.status();
  ASSERT_EQ(write(*fd, "\x05\x00\x00\x00garbage", 11), 11);
  ASSERT_TRUE(control::ReadFrame(*fd, &answer).ok());
  EXPECT_EQ(answer.refused().message(), "a control frame is not the message expected");
  close(*fd);
  EXPECT_TRUE(client::Client(daemon.socket()).ListSessions().ok());  // still serving
}

// Creates a throw-away user for the test's lifetime (needs root).
TEST(UntrustedInputTest, AnotherUserCanNeitherListReadNorStopASession) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create a second user with useradd";
  OtherUser other;
  ASSERT_NE(other.uid(), 0u) << "useradd failed";
  const std::string dir = MakeTempDir();
  Daemon daemon(dir);
  daemon.Start();
  const std::string protonctl = BinDir() + "/protonctl";
  ASSERT_EQ(RunToEnd({protonctl, "--socket", daemon.socket(), "run", "--name", "private", "--",
                      BinDir() + "/sample_workload", "--steps", "1"},
                     dir)
                .exit_code,
            0);
  // The other user runs a copy of protonctl from the test directory, which it can reach.
  const std::string copy = dir + "/protonctl";
  std::filesystem::copy_file(protonctl, copy);
  const ChildOptions as_other{{}, other.uid()};
  const Completed list = RunToEnd({copy, "--socket", daemon.socket(), "sessions"}, dir, as_other);
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, ::testing::Not(HasSubstr("private")));
  const Completed tree = RunToEnd({copy, "--socket", daemon.socket(), "tree", "1"}, dir, as_other);
  EXPECT_EQ(tree.exit_code, 1);
  EXPECT_THAT(tree.err, HasSubstr("session 1 belongs to another user"));
  const Completed stop =
      RunToEnd({copy, "--socket", daemon.socket(), "stop", "--session", "1"}, dir, as_other);
  EXPECT_EQ(stop.exit_code, 1);
  EXPECT_THAT(stop.err, HasSubstr("session 1 belongs to another user"));
}

}  // namespace
}  // namespace protond::testing
