// Store::SessionStoredBytes and Store::DeleteHistorySession: what an always-on window takes, and
// deleting one with every row of its own while nothing else goes.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "daemon/store/store.h"
#include "daemon/store/testing/session_batches.h"
#include "daemon/store/testing/store_file_test.h"
#include "daemon/store/testing/test_files.h"
#include "gtest/gtest.h"

namespace protond::store {
namespace {

using testing::QueryFile;
using testing::StoppedSessionBatch;

class StoreHistoryTest : public testing::StoreFileTest {
 protected:
  // The rows of every table that names a session, for session `id`, as "a,b,c,...".
  std::string RowsOf(uint64_t id) {
    return RowsIn({"sessions", "session_problems", "session_processes", "nodes", "node_stats",
                   "metric_values", "collective_events", "collective_kernels"},
                  id);
  }
};

TEST_F(StoreHistoryTest, AWindowsBytesAreItsRowsAtTheirMeasuredSizes) {
  Commit(StoppedSessionBatch(1, true, 0));
  Commit(StoppedSessionBatch(2, true, 10));
  // The session row 64, its problem 32 + 9 characters, its member 32; per node 24 + 40 + 36.
  EXPECT_EQ(*store_->SessionStoredBytes(1), 64u + 32 + 9 + 32);
  EXPECT_EQ(*store_->SessionStoredBytes(2), 64u + 32 + 9 + 32 + 10 * (24 + 40 + 36));
  EXPECT_EQ(*store_->SessionStoredBytes(3), 0u);
}

// `batch` with one collective call of its session, made from node 1.
Batch WithACollective(Batch batch) {
  const uint64_t session_id = batch.sessions[0].session_id;
  batch.collective_events = {{session_id, testing::kBatchProcessId, 0, 64, 1, 1000, 2000, 77, 0,
                              1024, 0, 2, "AllReduce", "ncclFloat32", "RING", "LL", 5}};
  batch.collective_kernels = {{session_id, testing::kBatchProcessId, 5, 0, 1100, 1900}};
  return batch;
}

TEST_F(StoreHistoryTest, AWindowsCollectivesCountInItsBytes) {
  Commit(WithACollective(StoppedSessionBatch(1, true, 1)));
  EXPECT_EQ(*store_->SessionStoredBytes(1), 64u + 32 + 9 + 32 + (24 + 40 + 36) + 96 + 48);
}

TEST_F(StoreHistoryTest, DeletingAWindowTakesEveryRowOfItsOwnAndNothingElse) {
  Commit(WithACollective(StoppedSessionBatch(1, true, 3)));
  Commit(WithACollective(StoppedSessionBatch(2, true, 2)));
  ASSERT_EQ(RowsOf(1), "1,1,1,3,3,3,1,1");

  ASSERT_TRUE(store_->DeleteHistorySession(1).ok());

  EXPECT_EQ(RowsOf(1), "0,0,0,0,0,0,0,0");
  EXPECT_EQ(RowsOf(2), "1,1,1,2,2,2,1,1");
  EXPECT_TRUE(store_->GetProcess(testing::kBatchProcessId)->has_value());
  EXPECT_EQ(QueryFile(path_, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

TEST_F(StoreHistoryTest, ASessionStartedByHandIsNeverDeletedAsHistory) {
  Commit(StoppedSessionBatch(1, false, 3));
  EXPECT_EQ(store_->DeleteHistorySession(1).ToString(),
            "FAILED_PRECONDITION: session 1 was started by hand; only always-on windows are "
            "deleted as history");
  EXPECT_EQ(RowsOf(1), "1,1,1,3,3,3,0,0");
}

TEST_F(StoreHistoryTest, ARunningWindowOrAnUnknownSessionIsNotDeleted) {
  Batch running = StoppedSessionBatch(1, true, 3);
  running.sessions[0].state = SessionState::kRunning;
  Commit(running);
  EXPECT_EQ(store_->DeleteHistorySession(1).ToString(),
            "FAILED_PRECONDITION: window 1 still runs; only stopped windows are deleted");
  EXPECT_EQ(RowsOf(1), "1,1,1,3,3,3,0,0");
  EXPECT_EQ(store_->DeleteHistorySession(9).ToString(), "NOT_FOUND: session 9 does not exist");
}

// The child of the crash test: deletes windows 1, 2, ... in order, telling the parent each id
// once DeleteHistorySession has returned OK. Never returns.
[[noreturn]] void DeleteWindowsInOrder(const std::string& path, uint64_t windows, int report_fd) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  if (!store.ok()) _exit(2);
  for (uint64_t id = 1; id <= windows; ++id) {
    if (!(*store)->DeleteHistorySession(id).ok()) _exit(3);
    if (write(report_fd, &id, sizeof(id)) != sizeof(id)) _exit(4);
  }
  _exit(0);
}

TEST_F(StoreHistoryTest, AKillWhileDeletingLeavesEachWindowWholeOrGone) {
  constexpr uint64_t kWindows = 40;
  constexpr uint32_t kNodes = 300;  // ~900 rows a window: a kill lands inside a deletion
  std::mt19937 random(7);
  for (int round = 0; round < 5; ++round) {
    for (uint64_t id = 1; id <= kWindows; ++id) {
      Commit(WithACollective(StoppedSessionBatch(id, true, kNodes)));
    }
    store_.reset();
    int report[2];
    ASSERT_EQ(pipe(report), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) DeleteWindowsInOrder(path_, kWindows, report[1]);
    close(report[1]);
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 30000));
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    uint64_t acknowledged = 0;
    for (uint64_t id; read(report[0], &id, sizeof(id)) == sizeof(id);) acknowledged = id;
    close(report[0]);

    EXPECT_EQ(QueryFile(path_, "PRAGMA integrity_check"), "ok");
    EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
    const std::string whole = "1,1,1,300,300,300,1,1";
    const std::string gone = "0,0,0,0,0,0,0,0";
    bool gone_so_far = true;  // deleted in order: the gone ones come first
    for (uint64_t id = 1; id <= kWindows; ++id) {
      const std::string rows = RowsOf(id);
      EXPECT_TRUE(rows == whole || rows == gone)
          << "round " << round << " window " << id << ": " << rows;
      if (id <= acknowledged) {
        EXPECT_EQ(rows, gone) << "round " << round << " window " << id;
      }
      if (!gone_so_far) {
        EXPECT_EQ(rows, whole) << "round " << round << " window " << id;
      }
      gone_so_far = gone_so_far && rows == gone;
    }
    SetUp();  // the store again, for the next round's windows
    if (HasFatalFailure()) return;
  }
}

TEST_F(StoreHistoryTest, AWindowsSummaryIsReadWithItAndDeletedWithIt) {
  Commit(StoppedSessionBatch(1, true, 3));
  Commit(StoppedSessionBatch(2, true, 2));
  const uint64_t bytes_before = *store_->SessionStoredBytes(1);
  ASSERT_TRUE(store_->PutWindowSummary({1, 750e6, 2, "matmul_kernel", 500e6}).ok());
  // Put again: the newer summary replaces the first.
  const WindowVerdictRow verdict{80, 40, 1, 4242, 10.2e6, 400e6, 0.2};
  ASSERT_TRUE(store_->PutWindowSummary({1, 750e6, 1, "matmul_kernel", 500e6, verdict}).ok());

  absl::StatusOr<std::vector<SessionRow>> listed = store_->ListSessions();
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 2u);
  ASSERT_TRUE((*listed)[0].window_summary.has_value());
  const WindowSummaryRow& summary = *(*listed)[0].window_summary;
  EXPECT_EQ(summary.session_id, 1u);
  EXPECT_EQ(summary.gpu_time_ns, 750e6);
  EXPECT_EQ(summary.gpus_used, 1u);
  EXPECT_EQ(summary.top_kernel, "matmul_kernel");
  EXPECT_EQ(summary.top_kernel_time_ns, 500e6);
  EXPECT_EQ(summary.verdict, verdict);
  EXPECT_FALSE((*listed)[1].window_summary.has_value());
  EXPECT_EQ((*store_->GetSession(1))->window_summary->verdict, verdict);
  EXPECT_EQ(*store_->SessionStoredBytes(1), bytes_before + 80);

  ASSERT_TRUE(store_->DeleteHistorySession(1).ok());
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM window_summaries"), "0");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

TEST_F(StoreHistoryTest, OnlyAStoppedWindowIsSummarized) {
  Commit(StoppedSessionBatch(1, false, 1));
  Batch running = StoppedSessionBatch(2, true, 1);
  running.sessions[0].state = SessionState::kRunning;
  Commit(running);
  EXPECT_EQ(store_->PutWindowSummary({1, 0, 1, "", 0}).ToString(),
            "FAILED_PRECONDITION: session 1 was started by hand; only always-on windows are "
            "summarized as history");
  EXPECT_EQ(store_->PutWindowSummary({2, 0, 1, "", 0}).ToString(),
            "FAILED_PRECONDITION: window 2 still runs; only stopped windows are summarized");
  EXPECT_EQ(store_->PutWindowSummary({3, 0, 1, "", 0}).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM window_summaries"), "0");
}

}  // namespace
}  // namespace protond::store
