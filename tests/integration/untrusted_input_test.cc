// Hostile input from a profiled process and from another user: the daemon stays up, isolates
// what is bad, and keeps everything else.
#include <pwd.h>
#include <unistd.h>

#include <filesystem>

#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "protond.grpc.pb.h"
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

// Sends one Register call and returns how it ended.
grpc::Status Register(const std::string& socket, const v1::RegisterRequest& request) {
  auto stub = v1::Registration::NewStub(client::ConnectUnix(socket));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  auto reader = stub->Register(&context, request);
  v1::ControlCommand command;
  while (reader->Read(&command)) context.TryCancel();  // registered: hang up
  return reader->Finish();
}

TEST(UntrustedInputTest, RegistrationThatLiesAboutPidOrUidIsRefused) {
  const std::string dir = MakeTempDir();
  Daemon daemon(dir);
  daemon.Start();
  v1::RegisterRequest request;
  request.set_pid(getpid() + 1);
  request.set_uid(getuid());
  grpc::Status status = Register(daemon.socket(), request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(status.error_message(),
            "registration claims pid " + std::to_string(getpid() + 1) + " uid " +
                std::to_string(getuid()) + " but the connection belongs to pid " +
                std::to_string(getpid()) + " uid " + std::to_string(getuid()));
  request.set_pid(getpid());
  request.set_uid(getuid() + 1);
  EXPECT_EQ(Register(daemon.socket(), request).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // The right identity, but no region behind the descriptor it names.
  request.set_uid(getuid());
  request.set_region_fd(9999);
  request.set_region_bytes(4096);
  status = Register(daemon.socket(), request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("cannot open the region of process"));
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
