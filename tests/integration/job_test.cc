// `protonctl job` end to end: a two-rank job's NCCL kernels (nccl_kernels_workload, no GPU
// needed) recorded by `protonctl run --data trace` into one session, or its NCCL profiler
// plugin's collective calls recorded by `protonctl run` into a tree session, and the verdict read
// back by session and by job.
#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

constexpr char kJob[] = "job-4711";

class JobTest : public ::testing::Test {
 protected:
  void SetUp() override { daemon_.Start(); }

  // A two-rank workload's ranks in one session of `data`, as job kJob: nccl_kernels_workload
  // writes their NCCL kernels, nccl_plugin_workload makes their calls through the shim's NCCL
  // profiler plugin.
  void RunJob(const std::string& data, int delay_ms,
              const std::string& workload = "nccl_kernels_workload") {
    const Completed run =
        RunToEnd({BinDir() + "/protonctl", "--socket", daemon_.socket(), "run", "--data", data,
                  "--", BinDir() + "/" + workload, std::to_string(delay_ms), "50"},
                 dir_, {{{"SLURM_JOB_ID", kJob}}});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  }

  Completed Protonctl(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BinDir() + "/protonctl", "--socket", daemon_.socket()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunToEnd(argv, dir_);
  }

  // "on average 10.0 ms after the first": the 10.0, or -1 without such a line.
  static double LatenessMs(const std::string& out) {
    std::smatch match;
    if (!std::regex_search(out, match, std::regex("on average ([0-9.]+) ms after the first"))) {
      return -1;
    }
    return std::stod(match[1]);
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
};

TEST_F(JobTest, NamesTheRankThatStartsLate) {
  RunJob("trace", 10);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"job", "1"}, std::vector<std::string>{"job", "--job", kJob}}) {
    const Completed job = Protonctl(args);
    ASSERT_EQ(job.exit_code, 0) << job.err;
    EXPECT_EQ(job.err, "");
    EXPECT_THAT(job.out, HasSubstr("2 ranks with NCCL kernels, matched in launch order"));
    EXPECT_THAT(job.out, HasSubstr("\nrank 1 (pid "));
    EXPECT_THAT(job.out, HasSubstr(") arrives last at 50 of 50 all_reduce calls"));
    EXPECT_NEAR(LatenessMs(job.out), 10.0, 2.0) << job.out;
    EXPECT_THAT(job.out, HasSubstr("\nall_reduce     50      50 "));
    EXPECT_THAT(job.out, HasSubstr("  RING       LL\n"));
    EXPECT_THAT(job.out, ::testing::Not(HasSubstr("problems:"))) << job.out;
  }
}

// The plugin's calls need no trace: a tree session, by session and by job.
TEST_F(JobTest, NamesTheLateRankFromThePluginsCallsInATreeSession) {
  RunJob("tree", 10, "nccl_plugin_workload");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"job", "1"}, std::vector<std::string>{"job", "--job", kJob}}) {
    const Completed job = Protonctl(args);
    ASSERT_EQ(job.exit_code, 0) << job.err;
    EXPECT_EQ(job.err, "");
    EXPECT_THAT(job.out, HasSubstr("2 ranks with NCCL collectives, matched by communicator and "
                                   "call number from NCCL's profiler plugin"));
    EXPECT_THAT(job.out, HasSubstr("\nrank 1 (pid "));
    // The workload's ranks sleep to their calls' times: a busy machine may wake one late.
    EXPECT_THAT(job.out, ContainsRegex("\\) arrives last at (4[5-9]|50) of 50 all_reduce calls"));
    EXPECT_NEAR(LatenessMs(job.out), 10.0, 2.0) << job.out;
    // 50 calls of 4 MiB, each about 1 ms once both ranks are there (the workload's sleeps
    // stamp the ends, within a fraction of a millisecond): about 4 GB/s, x1 for 2 ranks.
    EXPECT_THAT(job.out,
                ::testing::MatchesRegex("(.|\n)*\nall_reduce +50 +50 +210 MB .* [34]\\.[0-9]+ "
                                        "GB/s +RING +LL\n(.|\n)*"))
        << job.out;
    EXPECT_THAT(job.out, ::testing::Not(HasSubstr("problems:"))) << job.out;
  }
}

TEST_F(JobTest, ThePluginsCallsNameNoRankWithoutADelay) {
  RunJob("tree", 0, "nccl_plugin_workload");
  const Completed job = Protonctl({"job", "1"});
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_THAT(job.out, HasSubstr("matched by communicator and call number")) << job.out;
  EXPECT_THAT(job.out, HasSubstr("\nno rank is late: ")) << job.out;
  EXPECT_EQ(LatenessMs(job.out), -1) << job.out;
}

TEST_F(JobTest, NamesNoRankWithoutADelay) {
  RunJob("trace", 0);
  const Completed job = Protonctl({"job", "1"});
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_THAT(job.out, HasSubstr("\nno rank is late: ")) << job.out;
  EXPECT_EQ(LatenessMs(job.out), -1) << job.out;
}

// --follow redraws the report while the job's session runs (its shell sleeps after the ranks are
// done), then shows it once more, stopped.
TEST_F(JobTest, FollowRedrawsTheReportUntilTheJobsSessionStops) {
  const pid_t run =
      Spawn({BinDir() + "/protonctl", "--socket", daemon_.socket(), "run", "--data", "trace", "--",
             "/bin/sh", "-c", BinDir() + "/nccl_kernels_workload 10 50 && sleep 5"},
            dir_, {{{"SLURM_JOB_ID", kJob}}});
  bool ready = false;  // the ranks' kernels are in
  for (int i = 0; i < 100 && !ready; ++i) {
    ready =
        Protonctl({"job", "--job", kJob}).out.find("arrives last at 50 of 50") != std::string::npos;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(ready);
  const Completed follow = Protonctl({"job", "--job", kJob, "--follow"});
  EXPECT_EQ(Wait(run, dir_).exit_code, 0);
  ASSERT_EQ(follow.exit_code, 0) << follow.err;
  const std::string recording = std::string("job ") + kJob +
                                ", recording: redrawn every 2s, Ctrl-C leaves its sessions running"
                                "\n\njob job-4711: session 1, 2 ranks with NCCL kernels";
  EXPECT_EQ(follow.out.rfind(recording, 0), 0u) << follow.out;
  // Frames follow one another after a blank line on a pipe; the last is the only stopped one.
  const std::string stopped = std::string("\n\njob ") + kJob + ", stopped\n\njob job-4711: ";
  const size_t last = follow.out.find(stopped);
  ASSERT_NE(last, std::string::npos) << follow.out;
  EXPECT_EQ(follow.out.find(stopped, last + 1), std::string::npos) << follow.out;
  EXPECT_THAT(follow.out.substr(last), HasSubstr(") arrives last at 50 of 50 all_reduce calls"));
  EXPECT_NE(follow.out.find("\n\n" + recording), std::string::npos) << "redrawn while recording:\n"
                                                                    << follow.out;
}

// top --collectives needs no trace: the kernel names say enough for calls and times.
TEST_F(JobTest, TopCollectivesSumsBothRanksOfATreeSession) {
  RunJob("tree", 10);
  const Completed top = Protonctl({"top", "1", "--collectives"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_THAT(top.out, ::testing::StartsWith("TIME (ms)  TIME %  CALLS  AVG (us)  COLLECTIVE"));
  EXPECT_THAT(top.out, ::testing::MatchesRegex("(.|\n)*\n +[0-9.]+ +100\\.0 +100 +[0-9.]+ +"
                                               "all_reduce +f32 +RING +LL\n(.|\n)*"));
}

// With the plugin's calls, top --collectives has their bytes and bus bandwidth.
TEST_F(JobTest, TopCollectivesOfThePluginsCallsHasBytesAndBusBandwidth) {
  RunJob("tree", 10, "nccl_plugin_workload");
  const Completed top = Protonctl({"top", "1", "--collectives"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_THAT(top.out, ::testing::StartsWith("NCCL collective calls from NCCL's profiler plugin"));
  EXPECT_THAT(top.out,
              ::testing::MatchesRegex("(.|\n)*\nall_reduce +50 +50 +210 MB .* [34]\\.[0-9]+ "
                                      "GB/s +RING +LL\n"))
      << top.out;
}

// The plugin's calls in the tree, under the scope that made them: both ranks' 100 calls, and
// rank 0's waits for rank 1 (about 10 ms at each of its 50 calls); rank 1 waited for (almost) no
// one.
TEST_F(JobTest, TheTreeShowsThePluginsCallsUnderTheirScope) {
  RunJob("tree", 10, "nccl_plugin_workload");
  const Completed tree = Protonctl({"tree", "1", "-m", "nccl_calls,nccl_wait"});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  std::smatch wait;
  ASSERT_TRUE(std::regex_search(
      tree.out, wait,
      std::regex("\n +100 +([0-9]+) +└─ all_reduce \\[nccl, 2 ranks, RING/LL\\]\n")))
      << tree.out;
  EXPECT_NEAR(std::stod(wait[1]) / 1e6, 500.0, 100.0) << tree.out;
  const Completed late = Protonctl({"tree", "1", "--rank", "1", "-m", "nccl_calls,nccl_wait"});
  ASSERT_EQ(late.exit_code, 0) << late.err;
  // Rank 1 waits only where a busy machine woke rank 0 after it: a fraction of a millisecond.
  ASSERT_TRUE(std::regex_search(
      late.out, wait, std::regex("\n +50 +([0-9]+) +└─ all_reduce \\[nccl, 2 ranks, RING/LL\\]\n")))
      << late.out;
  EXPECT_LT(std::stod(wait[1]) / 1e6, 50.0) << late.out;
}

// tree --job ends with the verdict lines of job --job, as job prints them.
TEST_F(JobTest, TheJobsTreeEndsWithTheVerdict) {
  RunJob("tree", 10, "nccl_plugin_workload");
  const Completed job = Protonctl({"job", "--job", kJob});
  ASSERT_EQ(job.exit_code, 0) << job.err;
  const size_t verdict = job.out.find("\nrank 1 (pid ");
  const size_t table = job.out.find("\n\nCOLLECTIVE");
  ASSERT_NE(verdict, std::string::npos) << job.out;
  ASSERT_NE(table, std::string::npos) << job.out;
  const Completed tree = Protonctl({"tree", "--job", kJob, "-m", "nccl_wait"});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_THAT(tree.out, ::testing::EndsWith("\n" + job.out.substr(verdict, table + 1 - verdict)))
      << tree.out;
  // nccl_wait's spread: rank 0's total is the max.
  EXPECT_THAT(tree.out, ContainsRegex("\n +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9]+ +0 +2 +└─ all_reduce "
                                      "\\[nccl, 2 ranks, RING/LL\\]\n"))
      << tree.out;
}

TEST_F(JobTest, ATreeSessionIsRefusedWithWhatToDo) {
  RunJob("tree", 10);
  const Completed job = Protonctl({"job", "1"});
  EXPECT_EQ(job.exit_code, 1);
  EXPECT_EQ(job.out, "");
  EXPECT_EQ(job.err,
            "protonctl: session 1 has no per-kernel times: record it with `protonctl run --data "
            "trace ...`, or run the job with NCCL 2.23 or later, where the shim's NCCL profiler "
            "plugin records its collective calls in any session\n");
  const Completed other = Protonctl({"job", "--job", "no-such-job"});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.err, "protonctl: no session of job no-such-job here\n");
  // tree --job shows the tree, and why there is no verdict.
  const Completed tree = Protonctl({"tree", "--job", kJob});
  EXPECT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_THAT(tree.out, ::testing::EndsWith("\n\nno verdict: session 1 has no per-kernel times: "
                                            "record it with `protonctl run --data trace ...`, or "
                                            "run the job with NCCL 2.23 or later, where the "
                                            "shim's NCCL profiler plugin records its collective "
                                            "calls in any session\n"))
      << tree.out;
}

}  // namespace
}  // namespace protond::testing
