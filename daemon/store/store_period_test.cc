// Store::ReplaceWithPeriod: an always-on period written and the windows it merged deleted in one
// transaction, so that a failure or a kill between the two leaves either, never both or neither.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/store/store.h"
#include "daemon/store/testing/session_batches.h"
#include "daemon/store/testing/store_file_test.h"
#include "daemon/store/testing/test_files.h"
#include "gtest/gtest.h"

namespace protond::store {
namespace {

using testing::QueryFile;
using testing::StoppedSessionBatch;

// Period `id`'s rows: an hour with a chain of `nodes` nodes and its summary.
Batch HourBatch(uint64_t id, uint32_t nodes) {
  Batch batch = StoppedSessionBatch(id, true, nodes);
  batch.processes.clear();  // the windows' processes, already stored
  batch.sessions[0].period = HistoryPeriod::kHour;
  batch.sessions[0].window_summary = WindowSummaryRow{id, 3e9, 1, "matmul_kernel", 2e9};
  batch.sessions[0].window_summary->recorded_ns = 120'000'000'000;
  return batch;
}

class StorePeriodTest : public testing::StoreFileTest {
 protected:
  // The rows of session `id` in sessions, session_processes, nodes, node_stats, metric_values and
  // window_summaries, as "a,b,c,d,e,f".
  std::string RowsOf(uint64_t id) {
    return RowsIn({"sessions", "session_processes", "nodes", "node_stats", "metric_values",
                   "window_summaries"},
                  id);
  }
};

TEST_F(StorePeriodTest, ThePeriodIsWrittenAndItsWindowsDeleted) {
  Commit(StoppedSessionBatch(1, true, 3));
  Commit(StoppedSessionBatch(2, true, 2));
  Commit(StoppedSessionBatch(3, true, 1));

  ASSERT_TRUE(store_->ReplaceWithPeriod(HourBatch(10, 3), {1, 2}).ok());

  EXPECT_EQ(RowsOf(1), "0,0,0,0,0,0");
  EXPECT_EQ(RowsOf(2), "0,0,0,0,0,0");
  EXPECT_EQ(RowsOf(3), "1,1,1,1,1,0");
  EXPECT_EQ(RowsOf(10), "1,1,3,3,3,1");
  absl::StatusOr<std::optional<SessionRow>> hour = store_->GetSession(10);
  ASSERT_TRUE(hour.ok() && hour->has_value()) << hour.status();
  EXPECT_EQ((*hour)->period, HistoryPeriod::kHour);
  EXPECT_TRUE((*hour)->always_on_window);
  ASSERT_TRUE((*hour)->window_summary.has_value());
  EXPECT_EQ((*hour)->window_summary->recorded_ns, 120'000'000'000);
  EXPECT_EQ(QueryFile(path_, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

// A failure after the period's rows were written (the deletion refused: a session started by
// hand among those replaced) leaves the store as it was.
TEST_F(StorePeriodTest, AFailedDeletionLeavesTheWindowsAndNoPeriod) {
  Commit(StoppedSessionBatch(1, true, 3));
  Commit(StoppedSessionBatch(2, false, 2));

  EXPECT_EQ(store_->ReplaceWithPeriod(HourBatch(10, 3), {1, 2}).ToString(),
            "FAILED_PRECONDITION: session 2 was started by hand; only always-on windows are "
            "deleted as history");

  EXPECT_EQ(RowsOf(1), "1,1,3,3,3,0");
  EXPECT_EQ(RowsOf(2), "1,1,2,2,2,0");
  EXPECT_EQ(RowsOf(10), "0,0,0,0,0,0");
  // The period's strings were rolled back with it: a later commit interns them again.
  ASSERT_TRUE(store_->ReplaceWithPeriod(HourBatch(11, 3), {1}).ok());
  EXPECT_EQ((*store_->GetSession(11))->window_summary->top_kernel, "matmul_kernel");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

TEST_F(StorePeriodTest, RowsThatAreNotOnePeriodAreRefused) {
  Commit(StoppedSessionBatch(1, true, 1));
  Batch window = HourBatch(10, 1);
  window.sessions[0].period = HistoryPeriod::kWindow;
  EXPECT_EQ(store_->ReplaceWithPeriod(window, {1}).ToString(),
            "INVALID_ARGUMENT: session 10 is not a stopped always-on period (an hour or a day)");
  Batch with_process = HourBatch(10, 1);
  with_process.processes = StoppedSessionBatch(10, true, 0).processes;
  EXPECT_EQ(store_->ReplaceWithPeriod(with_process, {1}).ToString(),
            "INVALID_ARGUMENT: period 10 carries process rows; a period holds only its own");
  EXPECT_EQ(RowsOf(1), "1,1,1,1,1,0");
  EXPECT_EQ(RowsOf(10), "0,0,0,0,0,0");
}

// The child of the kill test: replaces windows 2g+1 and 2g+2 with period 1000+g, g = 0, 1, ...,
// telling the parent each g once ReplaceWithPeriod has returned OK. Never returns.
[[noreturn]] void ReplaceGroupsInOrder(const std::string& path, uint64_t groups, uint32_t nodes,
                                       int report_fd) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  if (!store.ok()) _exit(2);
  for (uint64_t group = 0; group < groups; ++group) {
    if (!(*store)
             ->ReplaceWithPeriod(HourBatch(1000 + group, nodes), {2 * group + 1, 2 * group + 2})
             .ok()) {
      _exit(3);
    }
    if (write(report_fd, &group, sizeof(group)) != sizeof(group)) _exit(4);
  }
  _exit(0);
}

TEST_F(StorePeriodTest, AKillWhileReplacingLeavesEachGroupsWindowsOrItsPeriod) {
  constexpr uint64_t kGroups = 20;
  constexpr uint32_t kNodes = 300;  // ~1,800 rows a group: a kill lands inside a replacement
  const std::string window = "1,1,300,300,300,0";
  const std::string period = "1,1,300,300,300,1";
  const std::string gone = "0,0,0,0,0,0";
  std::mt19937 random(11);
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    for (uint64_t id = 1; id <= 2 * kGroups; ++id) {
      Commit(StoppedSessionBatch(id, true, kNodes));
    }
    store_.reset();
    int report[2];
    ASSERT_EQ(pipe(report), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) ReplaceGroupsInOrder(path_, kGroups, kNodes, report[1]);
    close(report[1]);
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 40000));
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    int64_t acknowledged = -1;
    for (uint64_t group; read(report[0], &group, sizeof(group)) == sizeof(group);) {
      acknowledged = static_cast<int64_t>(group);
    }
    close(report[0]);

    EXPECT_EQ(QueryFile(path_, "PRAGMA integrity_check"), "ok");
    EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
    for (uint64_t group = 0; group < kGroups; ++group) {
      SCOPED_TRACE(absl::StrCat("group ", group));
      const std::string first = RowsOf(2 * group + 1);
      const std::string second = RowsOf(2 * group + 2);
      const std::string merged = RowsOf(1000 + group);
      const bool windows_left = first == window && second == window && merged == gone;
      const bool replaced = first == gone && second == gone && merged == period;
      EXPECT_TRUE(windows_left || replaced) << first << " " << second << " " << merged;
      if (static_cast<int64_t>(group) <= acknowledged) {
        EXPECT_TRUE(replaced);
      }
    }
    // The next round starts from an empty history.
    testing::ExecOnFile(path_,
                        "DELETE FROM window_summaries; DELETE FROM metric_values; "
                        "DELETE FROM node_stats; DELETE FROM nodes; DELETE FROM session_problems; "
                        "DELETE FROM session_processes; DELETE FROM sessions;");
    SetUp();
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace protond::store
