// A program in a PID namespace of its own, as in a Kubernetes pod, registers with a protond of
// the parent namespace (as the DaemonSet's, with hostPID, sees pods) and is profiled by its job,
// POD_NAME: it claims the pid it knows (1), the socket says another. Needs unshare(1) and the
// right to make a PID namespace (root here); skipped with a message otherwise.
#include <chrono>
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

constexpr char kUnshare[] = "/usr/bin/unshare";

std::vector<std::string> InPidNamespace(const std::vector<std::string>& argv) {
  std::vector<std::string> all = {kUnshare, "--pid", "--fork", "--mount-proc", "--kill-child"};
  all.insert(all.end(), argv.begin(), argv.end());
  return all;
}

TEST(PidNamespaceTest, APodsProcessRegistersAndIsProfiledByItsJob) {
  const std::string dir = MakeTempDir();
  const Completed probe = RunToEnd(InPidNamespace({"/bin/true"}), dir);
  if (probe.exit_code != 0) {
    GTEST_SKIP() << "cannot make a PID namespace here (" << probe.err
                 << "): a pod's process was not tried";
  }
  Daemon daemon(dir);
  daemon.Start();
  // The shim is preloaded by env inside the namespace, not into unshare itself.
  const pid_t pod =
      Spawn(InPidNamespace({"/usr/bin/env", "LD_PRELOAD=" + BinDir() + "/libprotond_shim.so",
                            BinDir() + "/sample_workload", "--steps", "300", "--step-ms", "10"}),
            dir, {{{"PROTOND_SOCKET", daemon.socket()}, {"POD_NAME", "train-0"}}});
  const std::vector<std::string> start = {BinDir() + "/protonctl",
                                          "--socket",
                                          daemon.socket(),
                                          "start",
                                          "--job",
                                          "train-0",
                                          "--duration",
                                          "300ms",
                                          "--wait"};
  const std::string control_dir = MakeTempDir();  // the pod's output stays in `dir`
  Completed started;
  for (int i = 0; i < 50; ++i) {  // the shim registers about 200 ms after the program starts
    started = RunToEnd(start, control_dir);
    if (started.exit_code == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(started.exit_code, 0) << started.err << ReadFile(daemon.log_path());
  EXPECT_THAT(started.out, HasSubstr("session 1 (job train-0): recording 1 of 1 process"));
  client::Client client(daemon.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  ASSERT_EQ(sessions->sessions_size(), 1);
  const v1::Session& session = sessions->sessions(0);
  EXPECT_GT(session.records(), 0u);
  ASSERT_EQ(session.processes_size(), 1);
  // protond knows it by the pid of its own namespace, not the 1 the program knows itself by.
  EXPECT_NE(session.processes(0).pid(), 1u);
  EXPECT_EQ(session.processes(0).job().pod(), "train-0");
  Wait(pod, dir);
}

}  // namespace
}  // namespace protond::testing
