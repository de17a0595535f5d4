// On demand: protonctl processes, start and stop on programs that run with the shim loaded and no
// session (as under a Slurm prolog that preloads it), against a real protond.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class OnDemandTest : public ::testing::Test {
 protected:
  // Processes without the shim are refused here; attach_test has protond load it.
  void SetUp() override { daemon_.Start({"--no-shim-loading"}); }

  // The sample workload with the shim preloaded and no session, as `extra_env` says it is.
  pid_t SpawnIdleWorkload(int steps, int step_ms,
                          std::map<std::string, std::string> extra_env = {}) {
    extra_env["LD_PRELOAD"] = BinDir() + "/libprotond_shim.so";
    extra_env["PROTOND_SOCKET"] = daemon_.socket();
    return Spawn({BinDir() + "/sample_workload", "--steps", std::to_string(steps), "--step-ms",
                  std::to_string(step_ms)},
                 dir_, {extra_env});
  }

  Completed Protonctl(std::vector<std::string> args, const ChildOptions& options = {}) {
    args.insert(args.begin(), {BinDir() + "/protonctl", "--socket", daemon_.socket()});
    return RunToEnd(args, dir_, options);
  }

  // Waits until `pid` is listed by protonctl processes (its shim registers after 200 ms).
  bool WaitRegistered(pid_t pid) {
    client::Client client(daemon_.socket());
    for (int i = 0; i < 100; ++i) {
      auto processes = client.ListProcesses();
      if (processes.ok()) {
        for (const v1::ProcessInfo& process : processes->processes()) {
          if (process.pid() == static_cast<uint32_t>(pid)) return true;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  v1::Session SessionOf(uint64_t id) {
    auto sessions = client::Client(daemon_.socket()).ListSessions();
    EXPECT_TRUE(sessions.ok()) << sessions.status();
    for (const v1::Session& session : sessions->sessions()) {
      if (session.id() == id) return session;
    }
    ADD_FAILURE() << "no session " << id;
    return {};
  }

  uint64_t StepCount(uint64_t id) {
    auto tree = client::Client(daemon_.socket()).GetTree(id);
    EXPECT_TRUE(tree.ok()) << tree.status();
    return NodesByPath(*tree)["train/step"].count();
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
};

// The CPU test: a running program profiled three times from protonctl, each session
// with only its own window, and the program's results unchanged.
TEST_F(OnDemandTest, ThreeWindowsOfARunningProgramAreThreeSessions) {
  // 15 s of steps: the three windows take about 2 s, and more than 5 s under ASan beside other
  // tests, where a workload of 5 s once ended before the third start ("not connected to protond
  // now": its shim had hung up on its way out).
  const pid_t workload = SpawnIdleWorkload(/*steps=*/1500, /*step_ms=*/10);
  ASSERT_TRUE(WaitRegistered(workload));
  const std::string pid = std::to_string(workload);
  std::vector<std::chrono::milliseconds> spans;  // from before start to after stop
  for (int window = 1; window <= 3; ++window) {
    const auto before = std::chrono::steady_clock::now();
    const Completed start = Protonctl({"start", "--pid", pid, "--name", "w"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err << "protond's log:\n"
                                  << ReadFile(daemon_.log_path());
    EXPECT_THAT(start.out, HasSubstr("session " + std::to_string(window) +
                                     " (w): recording 1 of 1 process\n  pid " + pid +
                                     ": recording (no GPU work yet"));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const Completed stop = Protonctl({"stop", "--pid", pid});
    ASSERT_EQ(stop.exit_code, 0) << stop.err;
    EXPECT_THAT(stop.out, HasSubstr("session " + std::to_string(window) + " stopped"));
    spans.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - before));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  const Completed done = Wait(workload, dir_);
  EXPECT_EQ(done.exit_code, 0) << done.err;
  // What the same program prints without the profiler: the checksum of its results, and its
  // summary (its sleeps change no result).
  const Completed unprofiled =
      RunToEnd({BinDir() + "/sample_workload", "--steps", "1500", "--step-ms", "0"}, dir_,
               {{{"PROTOND_DISABLE", "1"}}});
  ASSERT_EQ(unprofiled.exit_code, 0) << unprofiled.err;
  EXPECT_THAT(unprofiled.out, HasSubstr("1500 steps, 4 threads x 50 loads, session 0\n"));
  EXPECT_EQ(done.out, unprofiled.out);
  uint64_t steps = 0;
  for (uint64_t id = 1; id <= 3; ++id) {
    const v1::Session session = SessionOf(id);
    EXPECT_EQ(session.state(), v1::Session::STOPPED);
    EXPECT_EQ(session.dropped_records(), 0u);
    EXPECT_TRUE(session.problems().empty()) << session.problems(0);
    // Steps of at least 10 ms each, in a window of 300 ms or more: never more than the span
    // from before start to after stop holds.
    const uint64_t window_steps = StepCount(id);
    EXPECT_GE(window_steps, 5u) << "session " << id;
    EXPECT_LE(window_steps, static_cast<uint64_t>(spans[id - 1].count() / 10 + 1))
        << "session " << id;
    steps += window_steps;
  }
  EXPECT_LT(steps, 1500u);  // only the windows, not the whole run
}

TEST_F(OnDemandTest, EachPidThatCannotBeProfiledSaysWhy) {
  const pid_t unregistered = Spawn({"/bin/sleep", "30"}, dir_);
  const pid_t gone = Spawn({"/bin/true"}, dir_);
  Wait(gone, dir_);
  // Ended by a signal once registered: one that ends by itself may do so before it registers on
  // a busy machine.
  const pid_t exited = SpawnIdleWorkload(/*steps=*/1000, /*step_ms=*/10);
  ASSERT_TRUE(WaitRegistered(exited));
  kill(exited, SIGKILL);
  Wait(exited, dir_);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the daemon sees it is gone
  const pid_t busy = Spawn({BinDir() + "/protonctl", "--socket", daemon_.socket(), "run", "--",
                            BinDir() + "/sample_workload", "--steps", "200", "--step-ms", "10"},
                           dir_);
  absl::StatusOr<v1::ListSessionsResponse> listed;
  for (int i = 0; i < 100; ++i) {  // protonctl run's session 1, once its process has joined
    listed = client::Client(daemon_.socket()).ListSessions();
    if (listed.ok() && listed->sessions_size() == 1 && listed->sessions(0).processes_size() == 1) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(listed.ok() && listed->sessions_size() == 1 &&
              listed->sessions(0).processes_size() == 1)
      << listed.status();
  const uint32_t busy_workload = listed->sessions(0).processes(0).pid();

  std::vector<std::string> args = {"start"};
  for (const uint32_t pid : {static_cast<uint32_t>(unregistered), static_cast<uint32_t>(gone),
                             static_cast<uint32_t>(exited), busy_workload}) {
    args.insert(args.end(), {"--pid", std::to_string(pid)});
  }
  const Completed start = Protonctl(args);
  EXPECT_EQ(start.exit_code, 1);
  EXPECT_THAT(start.out, HasSubstr("no process could be profiled\n"));
  EXPECT_THAT(start.out, HasSubstr("  pid " + std::to_string(unregistered) +
                                   ": not registered: protond's shim is not loaded in it. "
                                   "Start the program under `protonctl run -- PROGRAM`"));
  EXPECT_THAT(start.out, HasSubstr("  pid " + std::to_string(gone) + ": no such process\n"));
  EXPECT_THAT(start.out, HasSubstr("  pid " + std::to_string(exited) + ": exited\n"));
  EXPECT_THAT(start.out, HasSubstr("  pid " + std::to_string(busy_workload) +
                                   ": already in session 1 (sample_workload); stop it first: "
                                   "protonctl stop --session 1\n"));
  EXPECT_EQ(SessionOf(1).state(), v1::Session::RUNNING);  // protonctl run's is untouched
  kill(unregistered, SIGKILL);
  Wait(unregistered, dir_);
  EXPECT_EQ(Wait(busy, dir_).exit_code, 0);

  const Completed bad = Protonctl({"start", "--pid", "1", "--job", "x"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("start: start needs --pid PID (one or more) or --job JOB, not "
                                 "both"));
  const Completed nothing_to_stop = Protonctl({"stop", "--pid", std::to_string(exited)});
  EXPECT_EQ(nothing_to_stop.exit_code, 1);
  EXPECT_THAT(nothing_to_stop.err,
              HasSubstr("process " + std::to_string(exited) + " records into no running session"));
}

TEST_F(OnDemandTest, AnotherUsersProcessIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create a second user with useradd";
  OtherUser other;
  ASSERT_NE(other.uid(), 0u) << "useradd failed";
  const pid_t workload = SpawnIdleWorkload(/*steps=*/200, /*step_ms=*/10);
  ASSERT_TRUE(WaitRegistered(workload));
  const std::string copy = dir_ + "/protonctl";  // a protonctl the other user can run
  std::filesystem::copy_file(BinDir() + "/protonctl", copy);
  const Completed start =
      RunToEnd({copy, "--socket", daemon_.socket(), "start", "--pid", std::to_string(workload)},
               dir_, {{}, other.uid()});
  EXPECT_EQ(start.exit_code, 1) << start.err;
  EXPECT_EQ(start.out, "no process could be profiled\n  pid " + std::to_string(workload) +
                           ": another user's process (uid 0)\n");
  const Completed list =
      RunToEnd({copy, "--socket", daemon_.socket(), "processes"}, dir_, {{}, other.uid()});
  EXPECT_THAT(list.out, HasSubstr("no registered processes"));
  kill(workload, SIGKILL);
  Wait(workload, dir_);
}

TEST_F(OnDemandTest, ADurationEndsTheSessionAndWaitPrintsItsTree) {
  const pid_t workload = SpawnIdleWorkload(/*steps=*/200, /*step_ms=*/10);
  ASSERT_TRUE(WaitRegistered(workload));
  const auto before = std::chrono::steady_clock::now();
  const Completed start =
      Protonctl({"start", "--pid", std::to_string(workload), "--duration", "300ms", "--wait"});
  const auto took = std::chrono::steady_clock::now() - before;
  ASSERT_EQ(start.exit_code, 0) << start.err;
  EXPECT_THAT(start.out, HasSubstr("session 1 (pid " + std::to_string(workload) + ")"));
  EXPECT_THAT(start.out, HasSubstr("session 1 stopped: "));
  EXPECT_THAT(start.out, HasSubstr("└─ step"));
  EXPECT_GE(took, std::chrono::milliseconds(300));
  EXPECT_LT(took, std::chrono::seconds(3));
  EXPECT_EQ(SessionOf(1).state(), v1::Session::STOPPED);
  EXPECT_EQ(Wait(workload, dir_).exit_code, 0);
}

TEST_F(OnDemandTest, ASessionEndsWhenAllItsProcessesHaveExited) {
  // 3 s: it must still run when start reaches it, on a machine busy with other tests.
  const pid_t workload = SpawnIdleWorkload(/*steps=*/300, /*step_ms=*/10);
  ASSERT_TRUE(WaitRegistered(workload));
  ASSERT_EQ(Protonctl({"start", "--pid", std::to_string(workload)}).exit_code, 0);
  EXPECT_EQ(Wait(workload, dir_).exit_code, 0);
  for (int i = 0; i < 50 && SessionOf(1).state() == v1::Session::RUNNING; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const v1::Session session = SessionOf(1);
  EXPECT_EQ(session.state(), v1::Session::STOPPED);
  ASSERT_EQ(session.processes_size(), 1);
  EXPECT_TRUE(session.processes(0).exited());
  EXPECT_THAT(session.problems(), Not(Contains(HasSubstr("ended without exit()"))));
  EXPECT_GT(StepCount(1), 0u);
}

// A process killed while it records: its session keeps what it recorded and says how it ended,
// from the mark its shim left unset in the region's header (common/ring/ring_layout.h).
TEST_F(OnDemandTest, ASessionSaysItsProcessEndedWithoutExit) {
  const pid_t workload = SpawnIdleWorkload(/*steps=*/1000, /*step_ms=*/10);
  ASSERT_TRUE(WaitRegistered(workload));
  ASSERT_EQ(Protonctl({"start", "--pid", std::to_string(workload)}).exit_code, 0);
  for (int i = 0; i < 100 && StepCount(1) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(workload, SIGKILL);
  Wait(workload, dir_);
  for (int i = 0; i < 100 && SessionOf(1).state() == v1::Session::RUNNING; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const v1::Session session = SessionOf(1);
  EXPECT_EQ(session.state(), v1::Session::STOPPED);
  EXPECT_THAT(session.problems(),
              Contains(StartsWith("process " + std::to_string(workload) +
                                  " ended without exit(): killed by a signal, crashed, or _exit")));
  EXPECT_GT(StepCount(1), 0u);
}

// A daemon killed (SIGKILL) and restarted while it records an on-demand session: the session
// keeps the steps stored before the kill and, once the process has reconnected by itself, goes on
// recording; then the process can be profiled again.
TEST_F(OnDemandTest, AfterADaemonRestartProcessesReconnectAndCanBeProfiledAgain) {
  const pid_t workload = SpawnIdleWorkload(/*steps=*/2000, /*step_ms=*/10);  // killed at the end
  ASSERT_TRUE(WaitRegistered(workload));
  ASSERT_EQ(Protonctl({"start", "--pid", std::to_string(workload)}).exit_code, 0);
  // A running session's tree is committed when asked for: these steps are stored.
  uint64_t before = 0;
  for (int i = 0; i < 100 && (before = StepCount(1)) < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(before, 5u);
  daemon_.Kill(SIGKILL);
  daemon_.Start();
  EXPECT_GE(StepCount(1), before) << "steps stored before the kill were lost";
  ASSERT_TRUE(WaitRegistered(workload));  // by itself, with backoff
  // After: 30 more steps (300 ms of the program) than were stored before the kill; the few
  // written between that query and the kill, read again from the ring, cannot make them up.
  uint64_t after = 0;
  for (int i = 0; i < 250 && (after = StepCount(1)) < before + 30; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(after, before + 30) << "the session recorded nothing after the restart";
  const Completed stop = Protonctl({"stop", "--session", "1"});
  EXPECT_EQ(stop.exit_code, 0) << stop.err;
  EXPECT_GE(StepCount(1), after);
  const Completed again = Protonctl({"start", "--pid", std::to_string(workload)});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_THAT(again.out, HasSubstr("session 2 "));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(Protonctl({"stop", "--session", "2"}).exit_code, 0);
  EXPECT_GT(StepCount(2), 0u);
  kill(workload, SIGKILL);
  Wait(workload, dir_);
}

TEST_F(OnDemandTest, AJobIsOneSessionOverItsRegisteredProcesses) {
  std::vector<pid_t> ranks;
  for (const char* rank : {"0", "1"}) {
    ranks.push_back(SpawnIdleWorkload(
        /*steps=*/150, /*step_ms=*/10,
        {{"SLURM_JOB_ID", "4242"}, {"RANK", rank}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", rank}}));
  }
  for (pid_t pid : ranks) ASSERT_TRUE(WaitRegistered(pid));
  const Completed listed = Protonctl({"processes"});
  EXPECT_THAT(listed.out, HasSubstr("0/2,local 0  4242"));
  EXPECT_THAT(listed.out, HasSubstr("1/2,local 1  4242"));
  const Completed start = Protonctl({"start", "--job", "4242", "--duration", "300ms", "--wait"});
  ASSERT_EQ(start.exit_code, 0) << start.err;
  EXPECT_THAT(start.out, HasSubstr("session 1 (job 4242): recording 2 of 2 processes\n"));
  const v1::Session session = SessionOf(1);
  std::set<std::string> session_ranks;
  for (const v1::SessionProcess& process : session.processes()) {
    session_ranks.insert(process.job().rank());
  }
  EXPECT_EQ(session_ranks, (std::set<std::string>{"0", "1"}));
  for (pid_t pid : ranks) EXPECT_EQ(Wait(pid, dir_).exit_code, 0);
  // The rank is a dimension of the tree: each rank's part, and the merged view.
  client::Client client(daemon_.socket());
  uint64_t per_rank_steps = 0;
  for (const char* rank : {"0", "1"}) {
    auto tree = client.GetTree(1, rank);
    ASSERT_TRUE(tree.ok()) << tree.status();
    const uint64_t steps = NodesByPath(*tree)["train/step"].count();
    EXPECT_GT(steps, 0u) << "rank " << rank;
    per_rank_steps += steps;
  }
  EXPECT_EQ(per_rank_steps, StepCount(1));
  const Completed rank_tree = Protonctl({"tree", "1", "--rank", "1", "-m", "count"});
  EXPECT_EQ(rank_tree.exit_code, 0) << rank_tree.err;
  EXPECT_THAT(rank_tree.out, HasSubstr("step"));
  const Completed no_rank = Protonctl({"tree", "1", "--rank", "7"});
  EXPECT_EQ(no_rank.exit_code, 1);
  EXPECT_THAT(no_rank.err, HasSubstr("session 1 has no process of rank 7 (its ranks: 0, 1)"));
  const Completed unknown = Protonctl({"start", "--job", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("no registered process of job nope on this node"));
}

// A scheduler's prolog starts the job's session before its tasks exist; each task that
// registers joins it, a task of another job does not, and the epilog stops it by the job.
TEST_F(OnDemandTest, AJobSessionWithIncludeNewTakesTheTasksThatComeLater) {
  const Completed start = Protonctl({"start", "--job", "77", "--include-new", "--name", "step"});
  ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
  EXPECT_EQ(start.out,
            "session 1 (step): recording 0 of 0 registered processes of job 77; those that "
            "register later join it\nstop it with: protonctl stop --session 1\n");
  const pid_t first = SpawnIdleWorkload(/*steps=*/150, /*step_ms=*/10, {{"SLURM_JOB_ID", "77"}});
  const pid_t other = SpawnIdleWorkload(/*steps=*/150, /*step_ms=*/10, {{"SLURM_JOB_ID", "78"}});
  EXPECT_EQ(Wait(first, dir_).exit_code, 0);
  EXPECT_EQ(Wait(other, dir_).exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(SessionOf(1).state(),
            v1::Session::RUNNING);  // its tasks gone, the job's next ones may come
  const pid_t second = SpawnIdleWorkload(/*steps=*/150, /*step_ms=*/10, {{"SLURM_JOB_ID", "77"}});
  EXPECT_EQ(Wait(second, dir_).exit_code, 0);

  const Completed stop = Protonctl({"stop", "--job", "77"});
  ASSERT_EQ(stop.exit_code, 0) << stop.err;
  EXPECT_THAT(stop.out, HasSubstr("session 1 stopped: "));
  const v1::Session session = SessionOf(1);
  EXPECT_EQ(session.job(), "77");
  EXPECT_TRUE(session.admits_new());
  std::set<uint32_t> pids;
  for (const v1::SessionProcess& process : session.processes()) pids.insert(process.pid());
  EXPECT_EQ(pids,
            (std::set<uint32_t>{static_cast<uint32_t>(first), static_cast<uint32_t>(second)}));
  // Each joined when it registered (200 ms in, later on a busy machine): not all its steps.
  EXPECT_GT(StepCount(1), 0u);
  EXPECT_LT(StepCount(1), 300u);
  const Completed again = Protonctl({"stop", "--job", "77"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("job 77 has no running session"));
}

// The steps count of each frame --follow printed (-m count), in order, and each frame's heading.
// A frame drawn before the first step ended has no step line: 0 steps.
struct FollowedFrames {
  std::vector<std::string> headings;
  std::vector<uint64_t> steps;
};

FollowedFrames ReadFrames(const std::string& out) {
  FollowedFrames frames;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (absl::StartsWith(line, "session ")) {
      frames.headings.emplace_back(line);
      frames.steps.push_back(0);
    }
    uint64_t steps;
    if (!frames.steps.empty() && absl::EndsWith(line, "─ step") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(0, line.find("  ", 2))), &steps)) {
      frames.steps.back() = steps;
    }
  }
  return frames;
}

// A live view: frames about a second apart while the session runs, each with the steps recorded
// so far, then the whole session once its duration has ended it; protonctl exits by itself.
TEST_F(OnDemandTest, TreeFollowRedrawsARunningSessionUntilItStops) {
  const pid_t workload = SpawnIdleWorkload(/*steps=*/450, /*step_ms=*/10);
  ASSERT_TRUE(WaitRegistered(workload));
  const std::string pid = std::to_string(workload);
  ASSERT_EQ(Protonctl({"start", "--pid", pid, "--duration", "2500ms"}).exit_code, 0);
  const auto before = std::chrono::steady_clock::now();
  const Completed follow = Protonctl({"tree", "1", "--follow", "-m", "count"});
  const auto took = std::chrono::steady_clock::now() - before;
  ASSERT_EQ(follow.exit_code, 0) << follow.err;
  const FollowedFrames frames = ReadFrames(follow.out);
  ASSERT_GE(frames.headings.size(), 3u) << follow.out;
  for (size_t i = 0; i + 1 < frames.headings.size(); ++i) {
    EXPECT_THAT(frames.headings[i], HasSubstr("session 1 (pid " + pid + "), running: "));
    EXPECT_THAT(frames.headings[i], HasSubstr("; redrawn every 1s"));
    EXPECT_LE(frames.steps[i], frames.steps[i + 1]);
  }
  EXPECT_LT(frames.steps.front(), frames.steps.back());
  EXPECT_THAT(frames.headings.back(), HasSubstr("session 1 (pid " + pid + "), stopped: "));
  EXPECT_EQ(frames.steps.back(), StepCount(1));
  EXPECT_LT(took, std::chrono::seconds(6));
  // The same session through top: no GPU work, and it says so.
  const Completed top = Protonctl({"top", "1"});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_EQ(top.out, "no GPU kernels in this profile\n");
  EXPECT_EQ(Wait(workload, dir_).exit_code, 0);
}

TEST_F(OnDemandTest, TreeFollowOfAStoppedSessionPrintsItOnce) {
  const pid_t workload = SpawnIdleWorkload(/*steps=*/100, /*step_ms=*/10);
  ASSERT_TRUE(WaitRegistered(workload));
  ASSERT_EQ(Protonctl({"start", "--pid", std::to_string(workload), "--duration", "200ms", "--wait"})
                .exit_code,
            0);
  const Completed follow = Protonctl({"tree", "1", "--follow", "-m", "count"});
  ASSERT_EQ(follow.exit_code, 0) << follow.err;
  const FollowedFrames frames = ReadFrames(follow.out);
  ASSERT_EQ(frames.headings.size(), 1u) << follow.out;
  EXPECT_THAT(frames.headings[0], HasSubstr("stopped: "));
  EXPECT_EQ(frames.steps[0], StepCount(1));
  const Completed missing = Protonctl({"tree", "9", "--follow"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "protonctl: session 9 does not exist (see protonctl sessions)\n");
  EXPECT_EQ(Wait(workload, dir_).exit_code, 0);
}

// The process's shim takes the mode with the session (it has no GPU here: the mode only reaches
// its GPU tracing), and the sessions table shows it; a bad mode starts nothing.
TEST_F(OnDemandTest, StartWithAModeRecordsAndListsIt) {
  const pid_t workload = SpawnIdleWorkload(/*steps=*/100, /*step_ms=*/10);
  ASSERT_TRUE(WaitRegistered(workload));
  const std::string pid = std::to_string(workload);
  const Completed bad = Protonctl({"start", "--pid", pid, "--mode", "pcsampling:every=2"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err,
              ::testing::StartsWith("protonctl: start: --mode: unknown pcsampling option 'every=2' "
                                    "(known: interval=CYCLES)\nusage: protonctl"));
  const Completed start =
      Protonctl({"start", "--pid", pid, "--name", "sampled", "--mode", "pcsampling:interval=4096"});
  ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
  EXPECT_THAT(start.out, HasSubstr("session 1 (sampled): recording 1 of 1 process\n"));
  EXPECT_EQ(SessionOf(1).mode(), "pcsampling:interval=4096");
  const Completed sessions = Protonctl({"sessions"});
  ASSERT_EQ(sessions.exit_code, 0) << sessions.err;
  EXPECT_THAT(sessions.out, HasSubstr("DROPPED  MODE\n"));
  EXPECT_THAT(sessions.out, HasSubstr("  pcsampling:interval=4096\n"));
  ASSERT_EQ(Protonctl({"stop", "--pid", pid}).exit_code, 0);
  EXPECT_GT(StepCount(1), 0u);
  EXPECT_EQ(Wait(workload, dir_).exit_code, 0);
}

}  // namespace
}  // namespace protond::testing
