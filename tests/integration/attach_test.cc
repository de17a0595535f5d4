// protonctl start --pid on a process that has nothing of protond's preloaded (docs/attach.md):
// protond loads its shim into it, the session records, the shim stays for the next start, and
// the program's results are those of a run without any of it.
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

class AttachTest : public ::testing::Test {
 protected:
  // attach_workload, with a file named like libcuda mapped so that processes --all lists it.
  pid_t SpawnWorkload(int steps, int step_ms) {
    const std::string fake_libcuda = dir_ + "/libcuda.so.1";
    std::ofstream(fake_libcuda) << std::string(4096, '\0');
    return Spawn({BinDir() + "/attach_workload", BinDir() + "/libprotond_shim.so",
                  std::to_string(steps), std::to_string(step_ms), fake_libcuda},
                 dir_);
  }

  Completed Protonctl(std::vector<std::string> args) {
    args.insert(args.begin(), {BinDir() + "/protonctl", "--socket", daemon_.socket()});
    return RunToEnd(args, dir_);
  }

  uint64_t AttachedSteps(uint64_t session_id) {
    auto tree = client::Client(daemon_.socket()).GetTree(session_id);
    EXPECT_TRUE(tree.ok()) << tree.status();
    return NodesByPath(*tree)["attached_step"].count();
  }

  // A window of `window` on `pid`; returns what start printed.
  std::string ProfileWindow(pid_t pid, const std::string& name, std::chrono::milliseconds window) {
    const Completed start = Protonctl({"start", "--pid", std::to_string(pid), "--name", name});
    EXPECT_EQ(start.exit_code, 0) << start.out << start.err;
    std::this_thread::sleep_for(window);
    const Completed stop = Protonctl({"stop", "--pid", std::to_string(pid)});
    EXPECT_EQ(stop.exit_code, 0) << stop.out << stop.err;
    return start.out;
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
};

TEST_F(AttachTest, StartLoadsTheShimOnceAndEachWindowRecordsItsSteps) {
  daemon_.Start();
  // 8 s of steps: the two windows take about 1.5 s, and more than 3 s under ASan beside other
  // tests (a workload that ends first is "not connected to protond now").
  const pid_t workload = SpawnWorkload(/*steps=*/1600, /*step_ms=*/5);
  const std::string pid = std::to_string(workload);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const Completed listed = Protonctl({"processes", "--all"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("no registered processes"));
  EXPECT_THAT(listed.out, MatchesRegex("(.|\n)*\n *" + pid + " +[0-9]+ +attachable +" + BinDir() +
                                       "/attach_workload (.|\n)*"));

  const std::string first = ProfileWindow(workload, "first", std::chrono::milliseconds(400));
  EXPECT_THAT(first, HasSubstr("session 1 (first): recording 1 of 1 process\n  pid " + pid +
                               ": recording (protond loaded its shim into it just now ("));
  EXPECT_THAT(first, HasSubstr("NVTX ranges and Python frames begun before are not seen"));
  // The shim stays: the second window is an ordinary start of a registered process.
  const std::string second = ProfileWindow(workload, "second", std::chrono::milliseconds(400));
  EXPECT_THAT(second, HasSubstr("session 2 (second): recording 1 of 1 process"));
  EXPECT_THAT(second, Not(HasSubstr("loaded its shim")));
  const auto sessions = client::Client(daemon_.socket()).ListSessions();
  ASSERT_TRUE(sessions.ok() && sessions->sessions_size() == 2) << sessions.status();
  ASSERT_EQ(sessions->sessions(0).problems_size(), 1);
  EXPECT_THAT(sessions->sessions(0).problems(0),
              MatchesRegex("pid " + pid + ": protond loaded its shim into it just now .*"));
  EXPECT_EQ(sessions->sessions(1).problems_size(), 0);
  EXPECT_GE(AttachedSteps(1), 10u);
  EXPECT_GE(AttachedSteps(2), 10u);
  EXPECT_THAT(Protonctl({"processes"}).out, HasSubstr(BinDir() + "/attach_workload"));

  const Completed done = Wait(workload, dir_);
  EXPECT_EQ(done.exit_code, 0) << done.err;
  const Completed alone = RunToEnd(
      {BinDir() + "/attach_workload", BinDir() + "/libprotond_shim.so", "1600", "0"}, dir_);
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  // The same results: only the step at which the shim appeared differs.
  const std::string results = alone.out.substr(0, alone.out.find(", attached at"));
  EXPECT_EQ(alone.out, results + ", attached at step -1\n");
  EXPECT_THAT(done.out, MatchesRegex(results + ", attached at step [1-9][0-9]*\n"));
}

// Two users of the same process at once: one loads the shim, the other finds it registered (not
// traced by protond, nor with a shim that has not registered yet); one of them records.
TEST_F(AttachTest, TwoStartsAtOnceLoadTheShimOnce) {
  daemon_.Start();
  const pid_t workload = SpawnWorkload(/*steps=*/600, /*step_ms=*/5);
  const std::string pid = std::to_string(workload);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::vector<std::string> start = {
      BinDir() + "/protonctl", "--socket", daemon_.socket(), "start", "--pid", pid};
  const std::string other_dir = MakeTempDir();
  const pid_t first = Spawn(start, dir_);
  const pid_t second = Spawn(start, other_dir);
  const std::string outs = Wait(first, dir_).out + Wait(second, other_dir).out;
  EXPECT_THAT(outs, MatchesRegex("(.|\n)*session 1 \\(pid " + pid +
                                 "\\): recording 1 of 1 process(.|\n)*"));
  EXPECT_THAT(outs, MatchesRegex("(.|\n)*no process could be profiled\n  pid " + pid +
                                 ": already in session 1 (.|\n)*"));
  kill(workload, SIGKILL);
  Wait(workload, dir_);
}

// As a pod's process seen from the node's protond (hostPID): protond knows it by the pid of its
// own namespace, the shim registers with the pid it knows itself by.
TEST_F(AttachTest, AProcessInAPidNamespaceOfItsOwnIsAttachedByTheNodesPid) {
  const Completed probe = RunToEnd({"/usr/bin/unshare", "--pid", "--fork", "/bin/true"}, dir_);
  if (probe.exit_code != 0) GTEST_SKIP() << "cannot make a PID namespace here: " << probe.err;
  daemon_.Start();
  const pid_t unshare =
      Spawn({"/usr/bin/unshare", "--pid", "--fork", "--kill-child", BinDir() + "/attach_workload",
             BinDir() + "/libprotond_shim.so", "600", "5"},
            dir_);
  std::string children;
  for (int i = 0; i < 100 && children.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    children = ReadFile(absl::StrCat("/proc/", unshare, "/task/", unshare, "/children"));
  }
  const pid_t workload = std::atoi(children.c_str());
  ASSERT_GT(workload, 0) << "unshare started no child";
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::string started = ProfileWindow(workload, "pod", std::chrono::milliseconds(300));
  EXPECT_THAT(started,
              HasSubstr("session 1 (pod): recording 1 of 1 process\n  pid " +
                        std::to_string(workload) + ": recording (protond loaded its shim"));
  EXPECT_GE(AttachedSteps(1), 5u);
  const Completed done = Wait(unshare, dir_);
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_THAT(done.out, MatchesRegex("steps 600, checksum [0-9]+, attached at step [1-9][0-9]*\n"));
}

TEST_F(AttachTest, AProcessThatIsAlreadyTracedIsRefusedWithTheReason) {
  daemon_.Start();
  const pid_t workload = SpawnWorkload(/*steps=*/2000, /*step_ms=*/5);
  ASSERT_EQ(ptrace(PTRACE_SEIZE, workload, nullptr, nullptr), 0) << "ptrace: " << errno;
  const std::string pid = std::to_string(workload);
  const std::string why = absl::StrCat("already traced by process ", getpid(), " (a debugger?)");
  EXPECT_THAT(Protonctl({"processes", "--all"}).out, HasSubstr(why));
  const Completed start = Protonctl({"start", "--pid", pid});
  EXPECT_EQ(start.exit_code, 1);
  EXPECT_THAT(start.out, HasSubstr("no process could be profiled\n  pid " + pid +
                                   ": not registered: protond's shim is not loaded in it."));
  EXPECT_THAT(start.out, HasSubstr(". protond could not load it now: " + why + "\n"));
  ptrace(PTRACE_DETACH, workload, nullptr, nullptr);
  kill(workload, SIGKILL);
  Wait(workload, dir_);
}

TEST_F(AttachTest, ADaemonWithoutShimLoadingListsWhy) {
  daemon_.Start({"--no-shim-loading"});
  const pid_t workload = SpawnWorkload(/*steps=*/2000, /*step_ms=*/5);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_THAT(Protonctl({"processes", "--all"}).out,
              HasSubstr("this protond does not load its shim (--no-shim-loading)"));
  kill(workload, SIGKILL);
  Wait(workload, dir_);
}

}  // namespace
}  // namespace protond::testing
