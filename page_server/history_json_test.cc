#include "page_server/history_json.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "page_server/http_message.h"
#include "view/history/window_summary.h"
#include "view/testing/test_profiles.h"

namespace protond::page_server {
namespace {

constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kStartNs = 1'795'773'600'000'000'000;  // 2026-11-27 10:00:00 UTC
const absl::Time kNow = absl::FromUnixNanos(kStartNs + 3'000 * kNsPerMs);

// A window of pid `pid` running `command`, from kStartNs + `start_ms` for `length_ms`.
v1::Session Window(uint64_t id, int64_t start_ms, int64_t length_ms, uint32_t pid,
                   const std::string& command) {
  v1::Session session;
  session.set_id(id);
  session.set_name("window pid " + std::to_string(pid));
  session.set_state(v1::Session::STOPPED);
  session.set_always_on_window(true);
  session.set_start_time_unix_ns(kStartNs + start_ms * kNsPerMs);
  session.set_end_time_unix_ns(kStartNs + (start_ms + length_ms) * kNsPerMs);
  session.set_records(100 + id);
  v1::SessionProcess* process = session.add_processes();
  process->set_pid(pid);
  process->set_command(command);
  return session;
}

// A step with each of `kernels_ms` (name, GPU time) under it, on one GPU if any.
v1::Tree StepTree(const std::vector<std::pair<std::string, int64_t>>& kernels_ms) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "step", 10);
  uint32_t id = 2;
  for (const auto& [name, ms] : kernels_ms)
    testing::AddKernel(&tree, id++, 1, name, 10, ms * kNsPerMs);
  if (!kernels_ms.empty()) tree.add_devices()->set_used(true);
  return tree;
}

TEST(HistoryJsonTest, EachWindowAsProtonctlHistorySumsItUp) {
  google::protobuf::RepeatedPtrField<v1::Session> windows;
  v1::Session* gpu = windows.Add();
  *gpu = Window(3, 0, 500, 7, "<img src=x onerror=alert(1)>");
  // 300 ms of a matmul and 100 ms of a copy (C++, shown short) in 500 ms, as protond sums it up.
  *gpu->mutable_window_summary() =
      view::SummarizeWindowTree(StepTree({{"_Z4copyPfS_", 100}, {"matmul_kernel", 300}})).value();
  // Rank 1 was late at its collective calls, as protonctl history's LATE says.
  gpu->mutable_window_summary()->mutable_verdict()->set_late_rank(1);
  gpu->mutable_window_summary()->mutable_verdict()->set_late_mean_ns(10.2 * kNsPerMs);
  v1::Session* cpu = windows.Add();
  *cpu = Window(4, 1000, 300, 7, "<img src=x onerror=alert(1)>");
  cpu->set_state(v1::Session::RUNNING);  // no summary yet
  const nlohmann::json json = HistoryJson(windows, 5, kNow);
  EXPECT_EQ(json.at("total_windows"), 5);
  EXPECT_FALSE(json.contains("note"));
  ASSERT_EQ(json.at("windows").size(), 2u);
  const nlohmann::json& first = json.at("windows")[0];
  EXPECT_EQ(first.at("session"), "3");
  EXPECT_EQ(first.at("kind"), "window");
  EXPECT_EQ(first.at("who"), "pid 7: <img src=x onerror=alert(1)>");
  EXPECT_EQ(first.at("pids"), nlohmann::json::array({7}));
  EXPECT_EQ(first.at("job"), "");
  EXPECT_EQ(first.at("running"), false);
  EXPECT_EQ(first.at("start_time_unix_ns"), "1795773600000000000");
  EXPECT_EQ(first.at("end_time_unix_ns"), "1795773600500000000");
  EXPECT_EQ(first.at("length_ns"), 500 * kNsPerMs);
  EXPECT_EQ(first.at("records"), "103");
  EXPECT_EQ(first.at("gpu_time_ns"), 400.0 * kNsPerMs);
  EXPECT_DOUBLE_EQ(first.at("gpu_busy").get<double>(), 0.8);
  EXPECT_EQ(first.at("top_kernel"), "matmul_kernel");
  EXPECT_DOUBLE_EQ(first.at("top_kernel_share").get<double>(), 0.75);
  EXPECT_EQ(first.at("late"), "rank 1 +10.2 ms");
  EXPECT_EQ(first.at("summarized"), true);
  // Without GPU work, what protonctl history prints as "-" is null; a running window's length
  // runs to now.
  const nlohmann::json& second = json.at("windows")[1];
  EXPECT_EQ(second.at("session"), "4");
  EXPECT_EQ(second.at("running"), true);
  EXPECT_EQ(second.at("length_ns"), 2000 * kNsPerMs);
  EXPECT_EQ(second.at("gpu_time_ns"), 0.0);
  EXPECT_TRUE(second.at("gpu_busy").is_null());
  EXPECT_TRUE(second.at("top_kernel").is_null());
  EXPECT_TRUE(second.at("top_kernel_share").is_null());
  EXPECT_TRUE(second.at("late").is_null());
  EXPECT_EQ(second.at("summarized"), false);
}

// A day that merged hours of windows: its kind, and its length the time its windows recorded.
TEST(HistoryJsonTest, ADaysLengthIsWhatItsWindowsRecorded) {
  google::protobuf::RepeatedPtrField<v1::Session> windows;
  v1::Session* day = windows.Add();
  *day = Window(3, 0, 24 * 3600 * 1000, 7, "train");
  day->set_name("day pid 7");
  day->set_period(v1::Session::DAY);
  *day->mutable_window_summary() =
      view::SummarizeWindowTree(StepTree({{"matmul_kernel", 300}})).value();
  day->mutable_window_summary()->set_recorded_ns(600 * kNsPerMs);
  const nlohmann::json listed = HistoryJson(windows, 1, kNow);
  const nlohmann::json& json = listed.at("windows")[0];
  EXPECT_EQ(json.at("kind"), "day");
  EXPECT_EQ(json.at("who"), "pid 7: train");
  EXPECT_EQ(json.at("length_ns"), 600 * kNsPerMs);
  EXPECT_DOUBLE_EQ(json.at("gpu_busy").get<double>(), 0.5);
}

TEST(HistoryJsonTest, NoWindowSaysWhatProtonctlHistorySays) {
  nlohmann::json json = HistoryJson({}, 4, kNow);
  EXPECT_EQ(json.at("windows"), nlohmann::json::array());
  EXPECT_EQ(json.at("note"), "none of the 4 always-on windows matches");
  json = HistoryJson({}, 0, kNow);
  EXPECT_EQ(json.at("note"),
            "no always-on windows: protond records them when started with --always-on "
            "(docs/always-on.md)");
}

TEST(HistoryJsonTest, ParametersAreProtonctlHistorysOptions) {
  const absl::StatusOr<view::WindowQuery> args =
      WindowQueryOf({{"pid", "7"}, {"command", "train"}, {"since", "2h"}, {"other", "x"}}, kNow);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->pid, 7u);
  EXPECT_EQ(args->command, "train");
  EXPECT_EQ(args->since, kNow - absl::Hours(2));
  EXPECT_EQ(args->until, absl::InfiniteFuture());
  EXPECT_EQ(WindowQueryOf({{"job", "77"}, {"until", "2026-11-27T10:00:00Z"}}, kNow)->until,
            absl::FromUnixNanos(kStartNs));
  EXPECT_EQ(WindowQueryOf({{"pid", "x"}}, kNow).status().message(),
            "--pid needs a process id (a positive number), not 'x'");
  EXPECT_EQ(WindowQueryOf({{"pid", "1"}, {"job", "77"}}, kNow).status().message(),
            "--pid and --job cannot be used together");
}

// Whatever code protond's ListHistory failed with (a tree it could not read was once a 400), the
// page's parameters were fine by then: it is protond's failure, 502, and the message stays.
TEST(HistoryJsonTest, AFailedListHistoryIsProtondsFailure) {
  for (const absl::Status& failed :
       {absl::InvalidArgumentError("the tree of window 7: node 1's parent 9 does not exist"),
        absl::FailedPreconditionError("store busy"), absl::UnavailableError("socket gone")}) {
    const absl::Status answered = ListHistoryFailed(failed);
    EXPECT_EQ(HttpStatusOf(answered), 502) << failed;
    EXPECT_EQ(answered.message(), absl::StrCat("protond's ListHistory failed: ", failed.message()));
  }
}

}  // namespace
}  // namespace protond::page_server
