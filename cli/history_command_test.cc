#include "cli/history_command.h"

#include <stdlib.h>
#include <time.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/history/window_selection.h"
#include "view/history/window_summary.h"
#include "view/testing/test_profiles.h"

namespace protond::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kNsPerSecond = 1'000'000'000;
// 2026-11-27 10:00:00 UTC.
constexpr int64_t kNov27 = 1'795'773'600 * kNsPerSecond;
const absl::Time kNow = absl::FromUnixNanos(kNov27 + 3600 * kNsPerSecond);  // 11:00:00

class HistoryCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

// A stopped window of pid `pid` (or of `job`), starting `start_s` after 10:00 and lasting
// `length_ms`.
v1::Session Window(uint64_t id, int64_t start_s, int64_t length_ms, uint32_t pid,
                   const std::string& command, const std::string& job = "") {
  v1::Session session;
  session.set_id(id);
  session.set_name(job.empty() ? "window pid " + std::to_string(pid) : "window job " + job);
  session.set_state(v1::Session::STOPPED);
  session.set_always_on_window(true);
  session.set_start_time_unix_ns(kNov27 + start_s * kNsPerSecond);
  session.set_end_time_unix_ns(kNov27 + start_s * kNsPerSecond + length_ms * kNsPerMs);
  session.set_records(100 + id);
  session.set_job(job);
  v1::SessionProcess* process = session.add_processes();
  process->set_pid(pid);
  process->set_command(command);
  return session;
}

google::protobuf::RepeatedPtrField<v1::Session> Sessions(const std::vector<v1::Session>& list) {
  google::protobuf::RepeatedPtrField<v1::Session> sessions;
  for (const v1::Session& session : list) *sessions.Add() = session;
  return sessions;
}

// The windows that protond selects for `args` (view/history/window_selection.h), as ListHistory
// answers them: HistoryRequestOf says the same as the options.
std::vector<const v1::Session*> SelectWindows(
    const google::protobuf::RepeatedPtrField<v1::Session>& sessions, const HistoryArgs& args) {
  absl::StatusOr<view::WindowSelection> selection =
      view::WindowSelection::Of(HistoryRequestOf(args));
  EXPECT_TRUE(selection.ok()) << selection.status();
  std::vector<const v1::Session*> windows;
  for (const v1::Session& session : sessions) {
    if (selection.ok() && selection->Selects(session)) windows.push_back(&session);
  }
  view::SortOldestFirst(windows);
  return windows;
}

// The window with the summary protond keeps for `tree` once it has stopped.
v1::Session Summarized(v1::Session window, const v1::Tree& tree) {
  absl::StatusOr<v1::WindowSummary> summary = view::SummarizeWindowTree(tree);
  EXPECT_TRUE(summary.ok()) << summary.status();
  if (summary.ok()) *window.mutable_window_summary() = *summary;
  return window;
}

std::vector<uint64_t> Ids(const std::vector<const v1::Session*>& sessions) {
  std::vector<uint64_t> ids;
  for (const v1::Session* session : sessions) ids.push_back(session->id());
  return ids;
}

HistoryArgs Parsed(const std::vector<std::string>& args) {
  absl::StatusOr<HistoryArgs> parsed = ParseHistoryArgs(args, kNow);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : HistoryArgs{};
}

std::string Refused(const std::vector<std::string>& args) {
  absl::StatusOr<HistoryArgs> parsed = ParseHistoryArgs(args, kNow);
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? "" : std::string(parsed.status().message());
}

// A tree with no GPU work: a scope.
v1::Tree CpuTree() {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "train", 3);
  return tree;
}

// 500 ms of a matmul and 250 ms of a copy (C++, shown short) on one GPU.
v1::Tree GpuTree() {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "step", 10);
  testing::AddKernel(&tree, 2, 1, "_Z4copyPfS_", 10, 250 * kNsPerMs);
  testing::AddKernel(&tree, 3, 1, "matmul_kernel", 10, 500 * kNsPerMs);
  tree.add_devices()->set_used(true);
  return tree;
}

TEST_F(HistoryCommandTest, WithoutOptionsEverything) {
  const HistoryArgs args = Parsed({});
  EXPECT_EQ(args.pid, 0u);
  EXPECT_EQ(args.job, "");
  EXPECT_EQ(args.command, "");
  EXPECT_EQ(args.since, absl::InfinitePast());
  EXPECT_EQ(args.until, absl::InfiniteFuture());
}

TEST_F(HistoryCommandTest, SinceAndUntilAreDurationsBackOrRfc3339Times) {
  HistoryArgs args = Parsed({"--since", "2h", "--until", "90s"});
  EXPECT_EQ(args.since, kNow - absl::Hours(2));
  EXPECT_EQ(args.until, kNow - absl::Seconds(90));
  args = Parsed({"--since", "30m", "--until", "500ms"});
  EXPECT_EQ(args.since, kNow - absl::Minutes(30));
  EXPECT_EQ(args.until, kNow - absl::Milliseconds(500));
  args = Parsed({"--since", "2026-11-27T10:00:00Z", "--until", "2026-11-27T12:30:00+02:00"});
  EXPECT_EQ(args.since, absl::FromUnixNanos(kNov27));
  EXPECT_EQ(args.until, absl::FromUnixNanos(kNov27 + 30 * 60 * kNsPerSecond));
  // Further back than anything was recorded.
  EXPECT_EQ(Parsed({"--since", "18446744073709551615ms"}).since, absl::InfinitePast());
}

TEST_F(HistoryCommandTest, FiltersParse) {
  EXPECT_EQ(Parsed({"--pid", "4242"}).pid, 4242u);
  EXPECT_EQ(Parsed({"--job", "77"}).job, "77");
  const HistoryArgs args = Parsed({"--pid", "9", "--command", "train\\.py"});
  EXPECT_EQ(args.pid, 9u);
  EXPECT_EQ(args.command, "train\\.py");
}

TEST_F(HistoryCommandTest, BadInputIsRefusedNamingWhatWasWrong) {
  EXPECT_EQ(Refused({"--since", "2x"}),
            "bad --since '2x': '2x' is not a duration (a positive number with ms, s, m, h or d; a "
            "bare number is seconds), nor an RFC 3339 time (2026-11-27T10:00:00Z)");
  EXPECT_EQ(
      Refused({"--until", "2026-13-01T00:00:00Z"}),
      "bad --until '2026-13-01T00:00:00Z': '2026-13-01T00:00:00Z' is not a duration (a "
      "positive number with ms, s, m, h or d; a bare number is seconds), nor an RFC 3339 time "
      "(2026-11-27T10:00:00Z)");
  EXPECT_EQ(Refused({"--since", "30m", "--until", "2h"}),
            "--since '30m' must be before --until '2h': no window starts in between");
  EXPECT_EQ(Refused({"--since", "1h", "--until", "1h"}),
            "--since '1h' must be before --until '1h': no window starts in between");
  EXPECT_EQ(Refused({"--pid", "1", "--job", "77"}), "--pid and --job cannot be used together");
  EXPECT_EQ(Refused({"--pid", "0"}), "--pid needs a process id (a positive number), not '0'");
  EXPECT_EQ(Refused({"--pid", "x"}), "--pid needs a process id (a positive number), not 'x'");
  EXPECT_EQ(Refused({"--job", ""}), "--job needs a job id");
  EXPECT_EQ(Refused({"--command", "train("}), "bad --command regex 'train(': missing ): train(");
  EXPECT_EQ(Refused({"--since"}), "--since needs a value");
  EXPECT_EQ(Refused({"--json"}), "unknown option '--json'");
  EXPECT_EQ(Refused({"7"}), "unexpected argument '7'");
}

TEST_F(HistoryCommandTest, OnlyWindowsOldestFirst) {
  v1::Session by_hand = Window(1, 0, 300, 10, "train");
  by_hand.set_always_on_window(false);
  const auto sessions = Sessions({Window(4, 3, 300, 10, "train"), by_hand,
                                  Window(2, 1, 300, 10, "train"), Window(3, 1, 300, 11, "eval")});
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({}))), ElementsAre(2, 3, 4));
}

TEST_F(HistoryCommandTest, PidJobAndCommandSelect) {
  v1::Session job_window = Window(5, 4, 300, 20, "python train.py --rank 0", "77");
  v1::SessionProcess* rank1 = job_window.add_processes();
  rank1->set_pid(21);
  rank1->set_command("python train.py --rank 1");
  const auto sessions = Sessions({Window(1, 0, 300, 10, "/usr/bin/python3 eval.py"),
                                  Window(2, 1, 300, 11, "./train --steps 5"),
                                  Window(3, 2, 300, 10, "/usr/bin/python3 eval.py"), job_window});
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--pid", "10"}))), ElementsAre(1, 3));
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--pid", "21"}))), ElementsAre(5));
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--pid", "99"}))), ElementsAre());
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--job", "77"}))), ElementsAre(5));
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--job", "78"}))), ElementsAre());
  // Found anywhere in a process's command line, as protond --always-on-command.
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--command", "train"}))), ElementsAre(2, 5));
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--command", "--rank 1$"}))), ElementsAre(5));
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--command", "^python3"}))), ElementsAre());
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--pid", "10", "--command", "eval"}))),
              ElementsAre(1, 3));
}

// [since, until), by the window's start.
TEST_F(HistoryCommandTest, RangesSelectByStart) {
  const auto sessions = Sessions({Window(1, 0, 300, 10, "w"), Window(2, 60, 300, 10, "w"),
                                  Window(3, 120, 300, 10, "w"), Window(4, 3599, 300, 10, "w")});
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--since", "2026-11-27T10:01:00Z"}))),
              ElementsAre(2, 3, 4));
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--until", "2026-11-27T10:02:00Z"}))),
              ElementsAre(1, 2));
  // 10:01:00 is in [10:00:00, 10:02:00) but not in [10:00:00, 10:01:00).
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--since", "1h", "--until", "58m"}))),
              ElementsAre(1, 2));
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--since", "1h", "--until", "59m"}))),
              ElementsAre(1));
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--since", "1s"}))), ElementsAre(4));
  EXPECT_THAT(Ids(SelectWindows(sessions, Parsed({"--since", "999ms"}))), ElementsAre());
}

TEST_F(HistoryCommandTest, BusyShareAndTopKernel) {
  const auto windows =
      Sessions({Summarized(Window(1, 0, 300, 10, "./sample_workload --steps 600"), CpuTree()),
                Summarized(Window(2, 60, 2000, 10, "python train.py"), GpuTree())});
  EXPECT_EQ(RenderHistory(windows, 2, kNow),
            "START                LENGTH  WHO                                    GPU BUSY  "
            "RECORDS  LATE  TOP KERNEL\n"
            "2026-11-27 10:00:00   300ms  pid 10: ./sample_workload --steps 600         -      "
            "101  -     -\n"
            "2026-11-27 10:01:00      2s  pid 10: python train.py                   37.5%      "
            "102  -     matmul_kernel (66.7%)\n");
}

// An hour that merged windows (protond --keep-windows) is listed with a KIND column: its START
// is its hour, its LENGTH the time its windows recorded, and its GPU BUSY a share of that.
TEST_F(HistoryCommandTest, AnHourIsListedAsOneWithWhatItsWindowsRecorded) {
  v1::Session hour = Summarized(Window(1, 0, 3600 * 1000, 10, "python train.py"), GpuTree());
  hour.set_name("hour pid 10");
  hour.set_period(v1::Session::HOUR);
  hour.mutable_window_summary()->set_recorded_ns(4 * kNsPerSecond);  // two windows of 2 s
  const auto windows =
      Sessions({hour, Summarized(Window(2, 3600, 2000, 10, "python train.py"), GpuTree())});
  EXPECT_EQ(
      RenderHistory(windows, 2, kNow),
      "START                KIND    LENGTH  WHO                      GPU BUSY  RECORDS  LATE  "
      "TOP KERNEL\n"
      "2026-11-27 10:00:00  hour        4s  pid 10: python train.py     18.8%      101  -     "
      "matmul_kernel (66.7%)\n"
      "2026-11-27 11:00:00  window      2s  pid 10: python train.py     37.5%      102  -     "
      "matmul_kernel (66.7%)\n");
}

// A job's window over two GPUs is busy by the GPU: 750 ms of work on each for 1 s is 75%.
TEST_F(HistoryCommandTest, AJobsBusyIsPerGpuUsed) {
  v1::Tree tree = GpuTree();
  testing::AddKernel(&tree, 4, 1, "matmul_kernel", 10, 500 * kNsPerMs);
  testing::AddKernel(&tree, 5, 1, "_Z4copyPfS_", 10, 250 * kNsPerMs);
  tree.add_devices()->set_used(true);
  tree.add_devices()->set_used(false);  // seen, not used
  const auto windows =
      Sessions({Summarized(Window(1, 0, 1000, 20, "python train.py", "77"), tree)});
  EXPECT_EQ(
      RenderHistory(windows, 1, kNow),
      "START                LENGTH  WHO     GPU BUSY  RECORDS  LATE  TOP KERNEL\n"
      "2026-11-27 10:00:00      1s  job 77     75.0%      101  -     matmul_kernel (66.7%)\n");
}

// A job's windows with the verdict on their collective calls: the late rank and its mean
// lateness, or "-" when none is late or the window had no calls.
TEST_F(HistoryCommandTest, LateNamesTheRankTheOthersWaitedFor) {
  v1::Session late = Summarized(Window(1, 0, 2000, 20, "python train.py", "77"), GpuTree());
  v1::WindowVerdict* verdict = late.mutable_window_summary()->mutable_verdict();
  verdict->set_collective_calls(80);
  verdict->set_judged_calls(40);
  verdict->set_late_rank(1);
  verdict->set_late_pid(21);
  verdict->set_late_mean_ns(10.2 * kNsPerMs);
  v1::Session balanced = Summarized(Window(2, 60, 2000, 20, "python train.py", "77"), GpuTree());
  balanced.mutable_window_summary()->mutable_verdict()->set_late_rank(-1);
  const auto windows = Sessions({late, balanced});
  EXPECT_EQ(RenderHistory(windows, 2, kNow),
            "START                LENGTH  WHO     GPU BUSY  RECORDS  LATE             TOP KERNEL\n"
            "2026-11-27 10:00:00      2s  job 77     37.5%      101  rank 1 +10.2 ms  "
            "matmul_kernel (66.7%)\n"
            "2026-11-27 10:01:00      2s  job 77     37.5%      102  -                "
            "matmul_kernel (66.7%)\n");
}

// A running window has no summary yet (protond makes it when the window stops): it says so.
TEST_F(HistoryCommandTest, ARunningWindowsLengthIsSoFarAndItsSummaryComesWhenItStops) {
  v1::Session running = Window(1, 3598, 0, 10, "w");
  running.set_state(v1::Session::RUNNING);
  running.set_end_time_unix_ns(0);
  EXPECT_THAT(RenderHistory(Sessions({running}), 1, kNow),
              HasSubstr("2026-11-27 10:59:58  2s so far  pid 10: w         -      101  -     "
                        "(when it stops)\n"));
}

// A stopped window protond could not summarize (a tree of a bad shape) is listed without one.
TEST_F(HistoryCommandTest, AStoppedWindowWithoutASummarySaysSo) {
  EXPECT_THAT(RenderHistory(Sessions({Window(7, 0, 1000, 10, "w")}), 1, kNow),
              HasSubstr("1s  pid 10: w         -      107  -     (no summary)\n"));
}

TEST_F(HistoryCommandTest, NoWindowsSaysHowTheyAreMade) {
  EXPECT_EQ(RenderHistory({}, 0, kNow),
            "no always-on windows: protond records them when started with --always-on "
            "(docs/always-on.md)\n");
  EXPECT_EQ(RenderHistory({}, 1, kNow), "the one always-on window does not match\n");
  EXPECT_EQ(RenderHistory({}, 12, kNow), "none of the 12 always-on windows matches\n");
}

// Kernel names and command lines are the profiled program's: printed as the other tables do.
TEST_F(HistoryCommandTest, HostileNamesArePrintedSafely) {
  v1::Session window = Window(1, 0, 1000, 10, "evil\x1b]0;owned\x07\ncmd");
  window.set_name("window pid 10\x1b[2J");
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddKernel(&tree, 1, 0, "k\x1b[31m\r\u202e", 1, 100 * kNsPerMs);
  const std::string text = RenderHistory(Sessions({Summarized(window, tree)}), 1, kNow);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_THAT(text, HasSubstr("pid 10\\x1b[2J: evil\\x1b]0;owned\\x07\\x0acmd"));
  EXPECT_THAT(text, HasSubstr("k\\x1b[31m\\x0d\\u202e (100.0%)\n"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
}

}  // namespace
}  // namespace protond::cli
