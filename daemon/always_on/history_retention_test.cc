// HistoryRetention over a real store in a temporary folder: empty windows go, the cap deletes the
// oldest windows first and never a session started by hand, and a step keeps to its deadline.
#include "daemon/always_on/history_retention.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "daemon/store/testing/session_batches.h"
#include "daemon/store/testing/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::always_on {
namespace {

using store::testing::StoppedSessionBatch;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr auto kNoDeadline = std::chrono::steady_clock::time_point::max();

// A stopped window of process 1, as the daemon holds it.
StoppedWindow Stopped(uint64_t session_id, int64_t start_ns, uint64_t records,
                      uint64_t dropped_records = 0) {
  StoppedWindow window;
  window.session_id = session_id;
  window.start_time_unix_ns = start_ns;
  window.records = records;
  window.dropped_records = dropped_records;
  window.name = "window pid 42";
  window.process_ids = {1};
  return window;
}

class HistoryRetentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<store::Store>> store = store::Store::Open(dir_.File("p.db"));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }
  // Commits a stopped session with `nodes` nodes that started at `start_ns`; returns its bytes.
  uint64_t Commit(uint64_t session_id, bool always_on_window, uint32_t nodes, int64_t start_ns) {
    EXPECT_TRUE(
        store_->CommitBatch(StoppedSessionBatch(session_id, always_on_window, nodes, start_ns))
            .ok());
    return *store_->SessionStoredBytes(session_id);
  }
  // A Step at the epoch, when no window is old enough to merge; appends what it deleted.
  static absl::Status Step(HistoryRetention& retention, store::Store& store,
                           const std::vector<StoppedWindow>& windows,
                           std::chrono::steady_clock::time_point deadline,
                           std::vector<uint64_t>& deleted) {
    HistoryRetention::Changes changes;
    const absl::Status status = retention.Step(
        store, windows, /*now_unix_ns=*/0, deadline, [] { return uint64_t{0}; }, changes);
    deleted.insert(deleted.end(), changes.deleted.begin(), changes.deleted.end());
    return status;
  }
  std::vector<uint64_t> StoredSessions() {
    absl::StatusOr<std::vector<store::SessionRow>> sessions = store_->ListSessions();
    EXPECT_TRUE(sessions.ok()) << sessions.status();
    std::vector<uint64_t> ids;
    for (const store::SessionRow& row :
         sessions.ok() ? *sessions : std::vector<store::SessionRow>{}) {
      ids.push_back(row.session_id);
    }
    return ids;
  }

  store::testing::TempDir dir_;
  std::unique_ptr<store::Store> store_;
};

TEST_F(HistoryRetentionTest, AWindowThatRecordedNothingIsDeletedAndCounted) {
  Commit(1, true, 0, 100);
  const uint64_t recorded = Commit(2, true, 3, 200);
  const uint64_t dropped = Commit(3, true, 0, 300);  // its records were lost: that is kept
  HistoryRetention retention({});
  std::vector<uint64_t> deleted;

  ASSERT_TRUE(Step(retention, *store_,
                   {Stopped(1, 100, 0, 0), Stopped(2, 200, 7, 0), Stopped(3, 300, 0, 5)},
                   kNoDeadline, deleted)
                  .ok());

  EXPECT_THAT(deleted, ElementsAre(1));
  EXPECT_THAT(StoredSessions(), ElementsAre(2, 3));
  EXPECT_EQ(retention.counters().empty_windows_deleted, 1u);
  EXPECT_EQ(retention.counters().windows_deleted_for_cap, 0u);
  EXPECT_EQ(retention.history_bytes(), recorded + dropped);
}

TEST_F(HistoryRetentionTest, OverTheCapTheOldestWindowsGoFirstAndNeverASessionStartedByHand) {
  Commit(1, false, 50, 10);  // started by hand, older and larger than every window: it stays
  const uint64_t newest = Commit(2, true, 4, 300);
  const uint64_t oldest = Commit(3, true, 4, 100);
  const uint64_t middle = Commit(4, true, 4, 200);
  // Room for two of the three windows.
  HistoryRetention retention({.history_max_bytes = newest + middle});
  std::vector<uint64_t> deleted;

  ASSERT_TRUE(Step(retention, *store_, {Stopped(2, 300, 7), Stopped(3, 100, 7), Stopped(4, 200, 7)},
                   kNoDeadline, deleted)
                  .ok());

  EXPECT_THAT(deleted, ElementsAre(3));
  EXPECT_THAT(StoredSessions(), ElementsAre(1, 2, 4));
  EXPECT_EQ(retention.history_bytes(), newest + middle);
  EXPECT_EQ(retention.counters().windows_deleted_for_cap, 1u);
  EXPECT_EQ(retention.counters().bytes_deleted_for_cap, oldest);

  // A new window passes the cap again: the oldest left goes.
  const uint64_t latest = Commit(5, true, 4, 400);
  deleted.clear();
  ASSERT_TRUE(Step(retention, *store_, {Stopped(2, 300, 7), Stopped(4, 200, 7), Stopped(5, 400, 7)},
                   kNoDeadline, deleted)
                  .ok());
  EXPECT_THAT(deleted, ElementsAre(4));
  EXPECT_THAT(StoredSessions(), ElementsAre(1, 2, 5));
  EXPECT_EQ(retention.history_bytes(), newest + latest);
}

TEST_F(HistoryRetentionTest, AStepPastItsDeadlineLeavesTheRestForTheNext) {
  Commit(1, true, 0, 100);
  HistoryRetention retention({});
  std::vector<uint64_t> deleted;
  const auto past = std::chrono::steady_clock::now() - std::chrono::seconds(1);

  ASSERT_TRUE(Step(retention, *store_, {Stopped(1, 100, 0)}, past, deleted).ok());
  EXPECT_THAT(deleted, IsEmpty());
  EXPECT_THAT(StoredSessions(), ElementsAre(1));

  ASSERT_TRUE(Step(retention, *store_, {Stopped(1, 100, 0)}, kNoDeadline, deleted).ok());
  EXPECT_THAT(deleted, ElementsAre(1));
}

}  // namespace
}  // namespace protond::always_on
