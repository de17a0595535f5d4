// protonctl run end to end: a real protond, the sample workload under the shim, and the stored
// tree checked value by value over gRPC.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;

class RunTest : public ::testing::Test {
 protected:
  void SetUp() override { daemon_.Start(); }

  std::vector<std::string> RunArgs(const std::vector<std::string>& workload_args) {
    std::vector<std::string> argv = {
        BinDir() + "/protonctl",      "--socket", daemon_.socket(), "run", "--name", "sample", "--",
        BinDir() + "/sample_workload"};
    argv.insert(argv.end(), workload_args.begin(), workload_args.end());
    return argv;
  }

  // Checks every count and metric of the sample workload with `steps` steps, 4 threads x 50 loads.
  static void ExpectSampleTree(const v1::Tree& tree, int steps) {
    auto nodes = NodesByPath(tree);
    ASSERT_EQ(nodes.size(), 7u) << tree.DebugString();
    EXPECT_EQ(nodes["setup"].count(), 1u);
    EXPECT_EQ(MetricValue(nodes["setup"], "bytes"), 1024);
    EXPECT_EQ(nodes["train"].count(), 1u);
    EXPECT_EQ(nodes["train/step"].count(), static_cast<uint64_t>(steps));
    EXPECT_DOUBLE_EQ(MetricValue(nodes["train/step"], "loss"), 1.0 / steps);
    EXPECT_EQ(nodes["train/step/forward"].count(), static_cast<uint64_t>(steps));
    EXPECT_EQ(MetricValue(nodes["train/step/forward"], "flops"), 1000.0 * steps);
    EXPECT_EQ(nodes["train/step/backward"].count(), static_cast<uint64_t>(steps));
    EXPECT_EQ(MetricValue(nodes["train/step/backward"], "flops"), 2000.0 * steps);
    EXPECT_EQ(nodes["worker"].count(), 4u);
    EXPECT_EQ(nodes["worker/load"].count(), 200u);
    EXPECT_EQ(MetricValue(nodes["worker/load"], "bytes"), 200.0 * 4096);
    // Durations nest: a parent lasts at least as long as its children together.
    EXPECT_GE(nodes["train"].duration_ns_sum(), nodes["train/step"].duration_ns_sum());
    EXPECT_GE(nodes["train/step"].duration_ns_sum(),
              nodes["train/step/forward"].duration_ns_sum() +
                  nodes["train/step/backward"].duration_ns_sum());
    EXPECT_GT(nodes["train/step/forward"].duration_ns_min(), 0u);
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
};

uint64_t ExpectedRecords(int steps) { return SampleWorkloadRecords(steps, 4, 50); }

TEST_F(RunTest, ExactTreeOfTheSampleWorkload) {
  const Completed run = RunToEnd(RunArgs({}), dir_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("protonctl: session 1 (sample): 801 records, 0 dropped"));
  client::Client client(daemon_.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  ASSERT_EQ(sessions->sessions_size(), 1);
  const v1::Session& session = sessions->sessions(0);
  EXPECT_EQ(session.state(), v1::Session::STOPPED);
  EXPECT_EQ(session.records(), ExpectedRecords(20));
  EXPECT_EQ(session.dropped_records(), 0u);
  ASSERT_EQ(session.processes_size(), 1);
  EXPECT_THAT(session.processes(0).command(), HasSubstr("sample_workload"));
  EXPECT_TRUE(session.problems().empty());
  auto tree = client.GetTree(session.id());
  ASSERT_TRUE(tree.ok()) << tree.status();
  ExpectSampleTree(*tree, 20);
}

TEST_F(RunTest, ProgramExitCodeIsPassedThrough) {
  EXPECT_EQ(RunToEnd(RunArgs({"--steps", "1", "--exit-code", "3"}), dir_).exit_code, 3);
}

// The CUDA driver calls the shim's InitializeInjection only when it is the injection library.
TEST_F(RunTest, ShimMakesItselfTheCudaInjectionUnlessAnotherIsSet) {
  std::vector<std::string> argv = RunArgs({});
  argv.back() = "/usr/bin/env";
  const Completed run = RunToEnd(argv, dir_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("CUDA_INJECTION64_PATH=" + BinDir() + "/libprotond_shim.so\n"));

  const Completed kept = RunToEnd(argv, dir_, {{{"CUDA_INJECTION64_PATH", "/opt/other.so"}}});
  EXPECT_THAT(kept.out, HasSubstr("CUDA_INJECTION64_PATH=/opt/other.so\n"));
}

// The program gets the session's mode beside the session, as the daemon stores it; a mode that
// does not parse runs nothing.
TEST_F(RunTest, ModeReachesTheProgramAndTheSession) {
  const std::string protonctl = BinDir() + "/protonctl";
  const Completed run = RunToEnd({protonctl, "--socket", daemon_.socket(), "run", "--mode",
                                  "pc_sampling:interval=1000", "--", "/usr/bin/env"},
                                 dir_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("PROTOND_SESSION=1\n"));
  EXPECT_THAT(run.out, HasSubstr("PROTOND_SESSION_MODE=pcsampling:interval=1024\n"));
  client::Client client(daemon_.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  ASSERT_EQ(sessions->sessions_size(), 1);
  EXPECT_EQ(sessions->sessions(0).mode(), "pcsampling:interval=1024");

  const std::string marker = dir_ + "/ran";
  const Completed bad = RunToEnd(
      {protonctl, "--socket", daemon_.socket(), "run", "--mode", "bogus", "--", "touch", marker},
      dir_);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err,
              ::testing::StartsWith("protonctl: run: --mode: unknown mode 'bogus' (known: \"\" and "
                                    "\"pcsampling[:interval=CYCLES]\")\nusage: protonctl"));
  EXPECT_FALSE(std::filesystem::exists(marker));
  sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  EXPECT_EQ(sessions->sessions_size(), 1);
}

TEST_F(RunTest, AnotherCudaInjectionIsReportedInTheSession) {
  const Completed run =
      RunToEnd(RunArgs({"--steps", "1"}), dir_, {{{"CUDA_INJECTION64_PATH", "/opt/other.so"}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("CUDA_INJECTION64_PATH names /opt/other.so"));
  client::Client client(daemon_.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  ASSERT_EQ(sessions->sessions(0).problems_size(), 1);
  EXPECT_THAT(sessions->sessions(0).problems(0),
              HasSubstr("no GPU activity is recorded: CUDA_INJECTION64_PATH names /opt/other.so"));
}

TEST_F(RunTest, TreeAndSessionsCommandsPrintTheSession) {
  ASSERT_EQ(RunToEnd(RunArgs({"--steps", "2"}), dir_).exit_code, 0);
  const std::string protonctl = BinDir() + "/protonctl";
  const Completed sessions = RunToEnd({protonctl, "--socket", daemon_.socket(), "sessions"}, dir_);
  EXPECT_EQ(sessions.exit_code, 0) << sessions.err;
  EXPECT_THAT(sessions.out, HasSubstr("sample"));
  EXPECT_THAT(sessions.out, HasSubstr("stopped"));
  const Completed tree =
      RunToEnd({protonctl, "--socket", daemon_.socket(), "tree", "1", "-m", "count,flops"}, dir_);
  EXPECT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_THAT(tree.out, HasSubstr("└─ backward"));
  EXPECT_THAT(tree.out, HasSubstr("6000"));  // train's inclusive flops: 2 x (1000 + 2000)
  const Completed unknown = RunToEnd({protonctl, "--socket", daemon_.socket(), "tree", "42"}, dir_);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("session 42 does not exist"));
}

TEST_F(RunTest, DaemonKilledMidRunLeavesTheProgramUnharmed) {
  const pid_t run = Spawn(RunArgs({"--steps", "30", "--step-ms", "20"}), dir_,
                          {{{"PROTOND_EXIT_WAIT_MS", "200"}}});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  daemon_.Kill(SIGKILL);
  const Completed done = Wait(run, dir_);
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_THAT(done.out, HasSubstr("sample_workload: 30 steps"));
}

TEST_F(RunTest, SigkillBetweenCommitsAndRestartGivesTheUndisturbedTree) {
  const pid_t run = Spawn(RunArgs({"--steps", "60", "--step-ms", "20"}), dir_);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a few commits have happened
  daemon_.Kill(SIGKILL);
  daemon_.Start();
  const Completed done = Wait(run, dir_);
  ASSERT_EQ(done.exit_code, 0) << done.err;
  client::Client client(daemon_.socket());
  auto tree = client.GetTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ExpectSampleTree(*tree, 60);
  // And every metric, aggregation included, as the same workload gives undisturbed.
  ASSERT_EQ(RunToEnd(RunArgs({"--steps", "60"}), dir_).exit_code, 0);
  auto undisturbed = client.GetTree(2);
  ASSERT_TRUE(undisturbed.ok()) << undisturbed.status();
  ExpectSameTree(*tree, *undisturbed);
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok());
  EXPECT_EQ(sessions->sessions(0).records(), ExpectedRecords(60));
  EXPECT_EQ(sessions->sessions(0).dropped_records(), 0u);
  EXPECT_TRUE(sessions->sessions(0).problems().empty()) << sessions->sessions(0).problems(0);
}

// Sessions of one process recording at once, as Proton allows: each gets what was recorded while
// it was active, an exit only where its enter went, and starting one more than the shim has slots
// for is refused with the ids of the open ones.
TEST_F(RunTest, SessionsOfOneProcessRecordSideBySide) {
  const Completed run = RunToEnd({BinDir() + "/sessions_together_workload"}, dir_,
                                 {{{"PROTOND_SOCKET", daemon_.socket()}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "first 1 second 2 pause 0 resume 0 current 1 stop 0 then current 2; 0 0 0 7: this "
            "process has 4 sessions open already (2, 3, 4, 5); stop one before starting another\n");
  client::Client client(daemon_.socket());
  auto first = client.GetTree(1);
  auto second = client.GetTree(2);
  ASSERT_TRUE(first.ok() && second.ok()) << first.status() << second.status();
  auto first_nodes = NodesByPath(*first);
  EXPECT_EQ(first_nodes["outer"].count(), 1u);
  EXPECT_EQ(first_nodes["outer/inner"].count(), 2u);  // not the one done while paused
  EXPECT_EQ(MetricValue(first_nodes["outer/inner"], "items"), 6);
  EXPECT_FALSE(first_nodes.contains("after"));
  auto second_nodes = NodesByPath(*second);
  EXPECT_EQ(second_nodes["outer"].count(), 0u);  // entered before "second" started
  EXPECT_EQ(second_nodes["outer/inner"].count(), 3u);
  EXPECT_EQ(MetricValue(second_nodes["outer/inner"], "items"), 9);
  EXPECT_EQ(second_nodes["after"].count(), 1u);
}

// Vector metrics through the C ABI (version 10): summed element-wise in the daemon's tree, and
// refused in the shim when their length or type is not the name's first, or their count is out
// of range, with Proton's words.
TEST_F(RunTest, VectorMetricsOfTheCApiAreSummedElementWise) {
  const Completed run = RunToEnd({BinDir() + "/vector_metric_workload"}, dir_,
                                 {{{"PROTOND_SOCKET", daemon_.socket()}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "shorter 4: size mismatch for metric v: current=3, new=2\n"
            "scalar 4: Metric value type mismatch for valueId 1 (v): "
            "current=std::vector<int64_t>, new=int64_t\n"
            "empty 3: vector metric 'e' has 0 elements; it needs 1 to 512\n"
            "many 3: vector metric 'e' has 513 elements; it needs 1 to 512\n"
            "session 1\n");
  client::Client client(daemon_.socket());
  auto tree = client.GetTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  auto nodes = NodesByPath(*tree);
  const v1::TreeNode& s = nodes["s"];
  ASSERT_EQ(s.metrics_size(), 2);
  for (const v1::Metric& metric : s.metrics()) {
    if (metric.name() == "v") {
      ASSERT_EQ(metric.value_case(), v1::Metric::kIntVector);
      EXPECT_THAT(metric.int_vector().values(), ::testing::ElementsAre(2, 4, 6));
    } else {
      ASSERT_EQ(metric.value_case(), v1::Metric::kDoubleVector);
      EXPECT_THAT(metric.double_vector().values(), ::testing::ElementsAre(1.0, 3.0));
    }
  }
}

// The C API the Python package uses: start, pause/resume (Proton's deactivate/activate), stop,
// and the Hatchet file proton.finalize() writes, byte for byte.
TEST_F(RunTest, ProcessDrivesItsOwnSessionAndExportsHatchet) {
  const std::string hatchet = dir_ + "/in-process.hatchet";
  const Completed run = RunToEnd({BinDir() + "/session_api_workload", hatchet}, dir_,
                                 {{{"PROTOND_SOCKET", daemon_.socket()}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "session 1 pause 0 resume 0 foreign 3 flush 0 stop 0 export 0 bad-format 3 "
            "bad-path 7: cannot write /nonexistent-dir/x.hatchet: No such file or directory\n");
  client::Client client(daemon_.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  EXPECT_EQ(sessions->sessions(0).name(), "in-process");
  EXPECT_EQ(sessions->sessions(0).state(), v1::Session::STOPPED);
  EXPECT_EQ(sessions->sessions(0).records(), 21u);  // 7 recorded scopes: enter, metric, exit
  auto tree = client.GetTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  auto nodes = NodesByPath(*tree);
  EXPECT_EQ(nodes["work"].count(), 7u);  // the 3 done while paused are not recorded
  EXPECT_EQ(MetricValue(nodes["work"], "items"), 21);
  std::ifstream file(hatchet);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, R"json(
[
    {
        "children": [
            {
                "children": [],
                "frame": {
                    "name": "work",
                    "type": "function"
                },
                "metrics": {
                    "items": 21
                }
            }
        ],
        "frame": {
            "name": "ROOT",
            "type": "function"
        },
        "metrics": {
            "items": 0
        }
    },
    {}
]
)json");
}

// protond_session_stop (Python's finalize and deactivate too) never waits for the daemon: the
// workload stops its session while the daemon is SIGSTOPped and continues it only once the call
// returned. The shim's stop queue tells the daemon afterwards, and the export waits for that.
TEST_F(RunTest, SessionStopReturnsWhileTheDaemonDoesNotAnswer) {
  const std::string hatchet = dir_ + "/unanswered.hatchet";
  const Completed run =
      RunToEnd({BinDir() + "/unanswered_stop_workload", std::to_string(daemon_.pid()), hatchet},
               dir_, {{{"PROTOND_SOCKET", daemon_.socket()}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "session 1 stop 0 after 1 export 0\n") << run.err;  // 1: PROTOND_INACTIVE
  client::Client client(daemon_.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  EXPECT_EQ(sessions->sessions(0).state(), v1::Session::STOPPED);
  EXPECT_EQ(sessions->sessions(0).records(), 200u);
  EXPECT_EQ(sessions->sessions(0).dropped_records(), 0u);
  auto tree = client.GetTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  auto nodes = NodesByPath(*tree);
  EXPECT_EQ(nodes["work"].count(), 100u);
  EXPECT_FALSE(nodes.contains("after-stop"));
  EXPECT_THAT(ReadFile(hatchet), HasSubstr("\"name\": \"work\""));
}

TEST_F(RunTest, ASecondDaemonForTheSocketExitsAtOnceWithoutTouchingAStore) {
  const Completed second = RunToEnd(
      {BinDir() + "/protond", "--socket", daemon_.socket(), "--state-dir", dir_ + "/other"}, dir_);
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_THAT(second.err, HasSubstr("another protond serves " + daemon_.socket()));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/other"));
  EXPECT_TRUE(client::Client(daemon_.socket()).ListSessions().ok());
}

TEST(DetachTest, ReturnsOnceTheDaemonListensAndLeavesItRunning) {
  const std::string dir = MakeTempDir();
  const std::string socket = dir + "/run/protond.sock";
  const Completed detach = RunToEnd(
      {BinDir() + "/protond", "--detach", "--socket", socket, "--state-dir", dir + "/state"}, dir);
  ASSERT_EQ(detach.exit_code, 0) << detach.err;
  EXPECT_TRUE(client::Client(socket).ListSessions().ok());
  std::ifstream pid_file(dir + "/state/protond.pid");
  pid_t pid = 0;
  ASSERT_TRUE(pid_file >> pid);
  StopDetachedDaemon(pid);
  EXPECT_FALSE(std::filesystem::exists(socket));
  // A daemon that cannot start says so, and so does the command.
  const Completed failed = RunToEnd(
      {BinDir() + "/protond", "--detach", "--socket", socket, "--state-dir", "/proc/no/state"},
      dir);
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_THAT(failed.err, HasSubstr("cannot create state directory /proc/no/state"));
}

TEST(NoDaemonTest, ProgramRunsAndExitsZero) {
  const std::string dir = MakeTempDir();
  const std::string socket = dir + "/nobody-listens.sock";
  const Completed run = RunToEnd({BinDir() + "/protonctl", "--socket", socket, "run", "--",
                                  BinDir() + "/sample_workload", "--steps", "2"},
                                 dir, {{{"PROTOND_AUTOSTART", "0"}}});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("no protond is listening at " + socket +
                                 " (No such file or directory); PROTOND_AUTOSTART=0, so none was "
                                 "started\nprotonctl: running "));
  EXPECT_THAT(run.out, HasSubstr("sample_workload: 2 steps"));
  // The shim loaded with a session but no daemon: it gives up at exit after a bounded wait.
  const Completed direct = RunToEnd(
      {BinDir() + "/sample_workload", "--steps", "2"}, dir,
      {{{"PROTOND_SOCKET", socket}, {"PROTOND_SESSION", "7"}, {"PROTOND_EXIT_WAIT_MS", "100"}}});
  EXPECT_EQ(direct.exit_code, 0) << direct.err;
  // A session start with autostart off fails at once, saying so.
  const auto before = std::chrono::steady_clock::now();
  const Completed in_process = RunToEnd({BinDir() + "/session_api_workload"}, dir,
                                        {{{"PROTOND_SOCKET", socket}, {"PROTOND_AUTOSTART", "0"}}});
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(2));
  EXPECT_EQ(in_process.exit_code, 0);
  EXPECT_THAT(in_process.out,
              HasSubstr("start failed: no protond is listening at " + socket +
                        " (No such file or directory); PROTOND_AUTOSTART=0, so none was started"));
}

// The sessions of the daemon that was autostarted at `socket`, which is then stopped.
absl::StatusOr<v1::ListSessionsResponse> SessionsOfAutostartedDaemon(const std::string& socket) {
  std::ifstream pid_file(socket + ".state/protond.pid");
  pid_t pid = 0;
  if (!(pid_file >> pid)) return absl::NotFoundError("no daemon was started at " + socket);
  auto sessions = client::Client(socket).ListSessions();
  StopDetachedDaemon(pid);
  return sessions;
}

// The C ABI's session start with no daemon at the socket starts one, which outlives the program.
TEST(AutostartTest, SessionStartStartsADaemonThatOutlivesTheProgram) {
  const std::string dir = MakeTempDir();
  const std::string socket = dir + "/run/protond.sock";
  const Completed run = RunToEnd({BinDir() + "/session_api_workload", dir + "/out.hatchet"}, dir,
                                 {{{"PROTOND_SOCKET", socket}}});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, HasSubstr("session 1 pause 0 resume 0 foreign 3 flush 0 stop 0 export 0"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/out.hatchet"));
  auto sessions = SessionsOfAutostartedDaemon(socket);
  ASSERT_TRUE(sessions.ok()) << sessions.status() << run.out << run.err;
  ASSERT_EQ(sessions->sessions_size(), 1);
  EXPECT_EQ(sessions->sessions(0).name(), "in-process");
  EXPECT_EQ(sessions->sessions(0).records(), 21u);
}

// protonctl run, like a program's own session start, starts a daemon when none answers.
TEST(AutostartTest, ProtonctlRunStartsADaemonThatOutlivesIt) {
  const std::string dir = MakeTempDir();
  const std::string socket = dir + "/run/protond.sock";
  const Completed run =
      RunToEnd({BinDir() + "/protonctl", "--socket", socket, "run", "--name", "autostarted", "--",
                BinDir() + "/sample_workload", "--steps", "2"},
               dir);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("protonctl: started protond at " + socket +
                                 " (its store and log: " + socket + ".state)"));
  EXPECT_THAT(run.err, HasSubstr("protonctl: session 1 (autostarted):"));
  auto sessions = SessionsOfAutostartedDaemon(socket);
  ASSERT_TRUE(sessions.ok()) << sessions.status() << run.err;
  ASSERT_EQ(sessions->sessions_size(), 1);
  EXPECT_EQ(sessions->sessions(0).name(), "autostarted");
  EXPECT_GT(sessions->sessions(0).records(), 0u);
}

// protonctl found on PATH (its argv[0] a bare "protonctl") run in a folder that holds a
// ./protond: the daemon it starts is the one beside protonctl's /proc/self/exe, and the planted
// script (as root, anyone's) never runs.
TEST(AutostartTest, NeverRunsAProtondFromTheWorkingDirectory) {
  const std::string dir = MakeTempDir();
  const std::string work = dir + "/work";
  std::filesystem::create_directories(work);
  const std::string marker = dir + "/planted-protond-ran";
  std::ofstream(work + "/protond") << "#!/bin/sh\ntouch " << marker << "\nexit 1\n";
  std::filesystem::permissions(work + "/protond", std::filesystem::perms::owner_all);
  const std::string socket = dir + "/run/protond.sock";
  const Completed run =
      RunToEnd({"/bin/sh", "-c",
                "cd " + work + " && exec protonctl --socket " + socket + " run --name planted -- " +
                    BinDir() + "/sample_workload --steps 2"},
               dir, {{{"PATH", BinDir() + ":/usr/bin:/bin"}}});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_THAT(run.err, HasSubstr("protonctl: started protond at " + socket));
  auto sessions = SessionsOfAutostartedDaemon(socket);
  ASSERT_TRUE(sessions.ok()) << sessions.status() << run.err;
  ASSERT_EQ(sessions->sessions_size(), 1);
  EXPECT_EQ(sessions->sessions(0).name(), "planted");
}

}  // namespace
}  // namespace protond::testing
