// Always-on periods over a real store in a temporary folder, with the time passed in: windows
// whose hour is older than keep-windows become one hour per process or job, with the windows'
// tree summed; hours older than keep-hourly become a day; younger windows and sessions started by
// hand stay as they are.
#include "daemon/always_on/history_periods.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "daemon/always_on/history_retention.h"
#include "daemon/store/testing/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::always_on {
namespace {

using store::HistoryPeriod;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr int64_t kSecondNs = 1'000'000'000;
constexpr int64_t kHourNs = 3600 * kSecondNs;
constexpr int64_t kDayNs = 24 * kHourNs;
constexpr int64_t kDay0 = int64_t{1764201600} * kSecondNs;  // 2025-11-27 00:00 UTC
constexpr int64_t kWindowNs = 2 * kSecondNs;
constexpr auto kNoDeadline = std::chrono::steady_clock::time_point::max();

class HistoryPeriodsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<store::Store>> store = store::Store::Open(dir_.File("p.db"));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  // Commits a stopped 2 s window of process `process_id` (pid 40 + id; of `job` when set) at
  // `start_ns`: step -> matmul, matmul run twice for 10 ns each, with "flops" 5 and the summary
  // of one GPU, 20 ns of matmul. Returns it as the daemon holds it.
  StoppedWindow CommitWindow(uint64_t session_id, uint64_t process_id, int64_t start_ns,
                             const std::string& job = "", bool always_on_window = true) {
    const uint32_t pid = 40 + static_cast<uint32_t>(process_id);
    store::Batch batch;
    store::SessionRow row{session_id,
                          job.empty() ? "window pid " + std::to_string(pid) : "window job " + job,
                          1000,
                          store::SessionState::kStopped,
                          start_ns,
                          start_ns + kWindowNs,
                          {"window ended early"}};
    row.always_on_window = always_on_window;
    row.job = job;
    batch.sessions = {row};
    batch.processes = {{process_id, pid, 1000, 777, "python train.py", false}};
    batch.session_processes = {{session_id, process_id, 100, 1}};
    batch.nodes = {{session_id, 1, 0, "step"}, {session_id, 2, 1, "matmul"}};
    batch.node_stats = {{session_id, 1, process_id, 1, 50, 50, 50},
                        {session_id, 2, process_id, 2, 20, 10, 10}};
    batch.metrics = {
        {session_id, 2, process_id, "flops", store::MetricAggregation::kInclusive, false, 5, 0, {}},
        {session_id,
         2,
         process_id,
         "time (ns)",
         store::MetricAggregation::kInclusive,
         false,
         20,
         0,
         {}}};
    EXPECT_TRUE(store_->CommitBatch(batch).ok());
    if (always_on_window) {
      EXPECT_TRUE(
          store_->PutWindowSummary({session_id, 20, 1, "matmul", 20, {4, 2, 1, pid, 3, 7, 0.1}})
              .ok());
    }
    return {
        session_id, start_ns, 100, 1, row.name, 1000, job, {process_id}, HistoryPeriod::kWindow};
  }

  // One Step of retention at `now_ns` with the default policy (24 h of windows, 14 days of
  // hours) and new ids from 100 up.
  HistoryRetention::Changes Step(HistoryRetention& retention,
                                 const std::vector<StoppedWindow>& history, int64_t now_ns) {
    HistoryRetention::Changes changes;
    const absl::Status status = retention.Step(
        *store_, history, now_ns, kNoDeadline, [this] { return next_id_++; }, changes);
    EXPECT_TRUE(status.ok()) << status;
    return changes;
  }
  std::vector<uint64_t> StoredSessions() {
    absl::StatusOr<std::vector<store::SessionRow>> sessions = store_->ListSessions();
    EXPECT_TRUE(sessions.ok()) << sessions.status();
    std::vector<uint64_t> ids;
    if (!sessions.ok()) return ids;
    for (const store::SessionRow& row : *sessions) ids.push_back(row.session_id);
    return ids;
  }
  // Session `id` as stored; an empty row, and a failure, when it is not.
  store::SessionRow StoredSession(uint64_t id) {
    absl::StatusOr<std::optional<store::SessionRow>> row = store_->GetSession(id);
    if (!row.ok() || !row->has_value()) {
      ADD_FAILURE() << "session " << id << " is not stored";
      return {};
    }
    return **row;
  }
  // The summed "flops" of `session_id`'s frame `name`, over its processes.
  int64_t Flops(uint64_t session_id, const std::string& name) {
    const store::StoredTree tree = store_->LoadTree(session_id).value_or(store::StoredTree{});
    int64_t flops = 0;
    for (const store::MetricRow& metric : tree.metrics) {
      if (metric.name == "flops" && metric.node_id <= tree.nodes.size() &&
          tree.nodes[metric.node_id - 1].name == name) {
        flops += metric.int_value;
      }
    }
    return flops;
  }

  store::testing::TempDir dir_;
  std::unique_ptr<store::Store> store_;
  uint64_t next_id_ = 100;
};

TEST_F(HistoryPeriodsTest, AnHoursWindowsOlderThanKeepWindowsBecomeOneHourWithTheirSum) {
  std::vector<StoppedWindow> history;
  for (uint64_t i = 0; i < 3; ++i) {
    history.push_back(CommitWindow(1 + i, 1, kDay0 + static_cast<int64_t>(i) * 60 * kSecondNs));
  }
  // The next hour's window is not yet a day old past its hour: it stays a window.
  history.push_back(CommitWindow(4, 1, kDay0 + kHourNs + 60 * kSecondNs));
  CommitWindow(5, 1, kDay0 + 120 * kSecondNs, "", /*always_on_window=*/false);  // by hand
  HistoryRetention retention({});

  const HistoryRetention::Changes changes =
      Step(retention, history, kDay0 + kHourNs + kDayNs + kSecondNs);

  EXPECT_THAT(changes.deleted, ElementsAre(1, 2, 3));
  ASSERT_EQ(changes.periods.size(), 1u);
  EXPECT_THAT(StoredSessions(), ElementsAre(4, 5, 100));
  const store::SessionRow hour = StoredSession(100);
  EXPECT_EQ(hour.name, "hour pid 41");
  EXPECT_EQ(hour.period, HistoryPeriod::kHour);
  EXPECT_TRUE(hour.always_on_window);
  EXPECT_EQ(hour.start_time_unix_ns, kDay0);
  EXPECT_EQ(hour.end_time_unix_ns, kDay0 + kHourNs);
  EXPECT_THAT(hour.problems, ElementsAre("window ended early"));
  EXPECT_EQ(Flops(100, "matmul"), 3 * 5);
  const store::StoredTree tree = *store_->LoadTree(100);
  ASSERT_EQ(tree.node_stats.size(), 2u);
  EXPECT_EQ(tree.node_stats[1].count, 3u * 2);
  EXPECT_EQ(tree.node_stats[1].duration_ns_sum, 3u * 20);
  const std::vector<store::SessionProcessRow> members = *store_->ListSessionProcesses(100);
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].records, 300u);
  EXPECT_EQ(members[0].dropped_records, 3u);
  // The summary: made again from the merged tree; the time recorded and the calls summed.
  ASSERT_TRUE(hour.window_summary.has_value());
  EXPECT_EQ(hour.window_summary->recorded_ns, 3 * kWindowNs);
  EXPECT_EQ(hour.window_summary->gpu_time_ns, 60);
  EXPECT_EQ(hour.window_summary->top_kernel, "matmul");
  EXPECT_EQ(hour.window_summary->verdict.collective_calls, 12u);
  EXPECT_EQ(hour.window_summary->verdict.judged_calls, 6u);
  EXPECT_EQ(hour.window_summary->verdict.others_wait_ns, 21);
  // Every window named rank 1 (pid 41), 3 ms late: so does the hour (period_verdict_test.cc).
  EXPECT_EQ(hour.window_summary->verdict.late_rank, 1);
  EXPECT_EQ(hour.window_summary->verdict.late_pid, 41u);
  EXPECT_EQ(hour.window_summary->verdict.late_mean_ns, 3);
  EXPECT_DOUBLE_EQ(hour.window_summary->verdict.others_wait_share, 0.1);
  EXPECT_EQ(retention.counters().hours_made, 1u);
}

TEST_F(HistoryPeriodsTest, EachProcessAndEachJobOfAnHourHasItsOwnHour) {
  const std::vector<StoppedWindow> history = {CommitWindow(1, 1, kDay0),
                                              CommitWindow(2, 2, kDay0 + kSecondNs),
                                              CommitWindow(3, 1, kDay0 + 60 * kSecondNs),
                                              CommitWindow(4, 2, kDay0 + 61 * kSecondNs),
                                              CommitWindow(5, 3, kDay0 + 2 * kSecondNs, "j7"),
                                              CommitWindow(6, 4, kDay0 + 62 * kSecondNs, "j7")};
  HistoryRetention retention({});

  const HistoryRetention::Changes changes = Step(retention, history, kDay0 + 2 * kDayNs);

  EXPECT_THAT(changes.deleted, UnorderedElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(StoredSessions(), ElementsAre(100, 101, 102));
  std::vector<std::string> names;
  for (uint64_t id : {100, 101, 102}) {
    const store::SessionRow period = StoredSession(id);
    names.push_back(period.name);
    EXPECT_EQ(Flops(id, "matmul"), 2 * 5) << period.name;
  }
  EXPECT_THAT(names, UnorderedElementsAre("hour pid 41", "hour pid 42", "hour job j7"));
  // The job's hour holds both of its processes.
  for (uint64_t id : {100, 101, 102}) {
    if (StoredSession(id).job == "j7") {
      EXPECT_EQ(store_->ListSessionProcesses(id)->size(), 2u);
    }
  }
}

TEST_F(HistoryPeriodsTest, HoursOlderThanKeepHourlyBecomeOneDay) {
  std::vector<StoppedWindow> history = {CommitWindow(1, 1, kDay0),
                                        CommitWindow(2, 1, kDay0 + 5 * kHourNs),
                                        CommitWindow(3, 1, kDay0 + kDayNs + kHourNs)};
  HistoryRetention retention({});
  // A day later, the three windows are three hours.
  HistoryRetention::Changes changes = Step(retention, history, kDay0 + 3 * kDayNs);
  ASSERT_EQ(changes.periods.size(), 3u);
  EXPECT_THAT(StoredSessions(), ElementsAre(100, 101, 102));
  history.clear();
  for (const store::SessionRow& hour : changes.periods) {
    history.push_back({hour.session_id,
                       hour.start_time_unix_ns,
                       100,
                       1,
                       hour.name,
                       1000,
                       "",
                       {1},
                       HistoryPeriod::kHour});
  }

  // 14 days after the first day's end, its two hours are one day; the second day's hour stays.
  changes = Step(retention, history, kDay0 + kDayNs + 14 * kDayNs);

  EXPECT_THAT(changes.deleted, ElementsAre(100, 101));
  EXPECT_THAT(StoredSessions(), ElementsAre(102, 103));
  const store::SessionRow day = StoredSession(103);
  EXPECT_EQ(day.name, "day pid 41");
  EXPECT_EQ(day.period, HistoryPeriod::kDay);
  EXPECT_EQ(day.start_time_unix_ns, kDay0);
  EXPECT_EQ(day.end_time_unix_ns, kDay0 + kDayNs);
  EXPECT_EQ(Flops(103, "matmul"), 2 * 5);
  ASSERT_TRUE(day.window_summary.has_value());
  EXPECT_EQ(day.window_summary->recorded_ns, 2 * kWindowNs);
  EXPECT_EQ(retention.counters().days_made, 1u);
}

TEST_F(HistoryPeriodsTest, WindowsYoungerThanKeepWindowsStayWhole) {
  const std::vector<StoppedWindow> history = {CommitWindow(1, 1, kDay0),
                                              CommitWindow(2, 1, kDay0 + 60 * kSecondNs)};
  HistoryRetention retention({});
  // The hour ended 24 h ago less a second.
  const HistoryRetention::Changes changes =
      Step(retention, history, kDay0 + kHourNs + kDayNs - kSecondNs);
  EXPECT_THAT(changes.deleted, IsEmpty());
  EXPECT_THAT(changes.periods, IsEmpty());
  EXPECT_THAT(StoredSessions(), ElementsAre(1, 2));
}

TEST_F(HistoryPeriodsTest, AWindowStoredLateIntoAMergedHourJoinsIt) {
  std::vector<StoppedWindow> history = {CommitWindow(1, 1, kDay0)};
  HistoryRetention retention({});
  HistoryRetention::Changes changes = Step(retention, history, kDay0 + 2 * kDayNs);
  ASSERT_EQ(changes.periods.size(), 1u);
  history = {{100, kDay0, 100, 1, "hour pid 41", 1000, "", {1}, HistoryPeriod::kHour},
             CommitWindow(2, 1, kDay0 + 60 * kSecondNs)};

  changes = Step(retention, history, kDay0 + 2 * kDayNs);

  EXPECT_THAT(changes.deleted, ElementsAre(100, 2));
  EXPECT_THAT(StoredSessions(), ElementsAre(101));
  EXPECT_EQ(Flops(101, "matmul"), 2 * 5);
  EXPECT_EQ(StoredSession(101).window_summary.value_or(store::WindowSummaryRow{}).recorded_ns,
            2 * kWindowNs);
}

TEST_F(HistoryPeriodsTest, PeriodNamesFollowTheirMembers) {
  EXPECT_EQ(PeriodName("window pid 42", HistoryPeriod::kHour), "hour pid 42");
  EXPECT_EQ(PeriodName("hour job j7", HistoryPeriod::kDay), "day job j7");
}

}  // namespace
}  // namespace protond::always_on
