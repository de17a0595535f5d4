// Retention of the always-on history (protond --history-max, --keep-windows, --keep-hourly;
// docs/always-on.md "Retention"): which stopped windows leave the store, and which are merged into
// hours and days (history_periods.h). A window in which nothing was recorded (no record, none
// dropped) is deleted once it has stopped; every other one is measured once
// (Store::SessionStoredBytes) and, while the windows together take more than the cap, the oldest is
// deleted first. Only windows are given to it, and the store itself refuses to delete a session
// someone started by hand.
//
// Not thread-safe: one caller (the ingest thread, between cycles). Each store call is one short
// transaction; Step returns at its deadline and goes on where it stopped at the next call.
#ifndef PROTOND_DAEMON_ALWAYS_ON_HISTORY_RETENTION_H_
#define PROTOND_DAEMON_ALWAYS_ON_HISTORY_RETENTION_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/always_on/history_periods.h"
#include "daemon/always_on/stopped_window.h"
#include "daemon/store/store.h"

namespace protond::always_on {

struct RetentionPolicy {
  uint64_t history_max_bytes = uint64_t{2} << 30;  // --history-max, 2 GiB
  // --keep-windows, --keep-hourly: windows stay whole this long past their hour's end, then
  // become hours (history_periods.h); hours this long past their day's end, then become days.
  std::chrono::nanoseconds keep_windows = std::chrono::hours(24);
  std::chrono::nanoseconds keep_hourly = std::chrono::hours(24 * 14);
};

struct RetentionCounters {
  uint64_t empty_windows_deleted = 0;
  uint64_t hours_made = 0;  // each replacing the windows of its hour
  uint64_t days_made = 0;   // each replacing the hours of its day
  uint64_t windows_deleted_for_cap = 0;
  uint64_t bytes_deleted_for_cap = 0;
};

class HistoryRetention {
 public:
  explicit HistoryRetention(RetentionPolicy policy) : policy_(policy) {}

  // What one Step changed in the store, for the caller's session table.
  struct Changes {
    std::vector<uint64_t> deleted;           // sessions gone: deleted, or merged into a period
    std::vector<store::SessionRow> periods;  // periods made, as stored
  };

  // Deletes from `store` the empty windows of `windows` (every stopped window and period the
  // daemon holds), measures the others, merges the windows and hours due at `now_unix_ns` into
  // periods (one group a transaction, oldest first; new ids from `new_session_id`), then deletes
  // the oldest while the measured ones pass the cap; returns at `deadline` (checked before each
  // store call). Appends each deleted session id to `changes.deleted`, also when a store call
  // fails: the caller forgets them either way.
  absl::Status Step(store::Store& store, const std::vector<StoppedWindow>& windows,
                    int64_t now_unix_ns, std::chrono::steady_clock::time_point deadline,
                    absl::FunctionRef<uint64_t()> new_session_id, Changes& changes);

  // The bytes of the windows measured so far (all of them once a Step has had the time).
  uint64_t history_bytes() const { return history_bytes_; }
  const RetentionCounters& counters() const { return counters_; }
  const RetentionPolicy& policy() const { return policy_; }

 private:
  absl::Status Measure(store::Store& store, const StoppedWindow& window,
                       std::vector<uint64_t>& deleted);
  // Adds one member to the period being made (begun with the oldest group due, when none is),
  // or writes it once all are in; false when nothing is due.
  absl::StatusOr<bool> AdvancePeriods(store::Store& store, std::vector<StoppedWindow>& history,
                                      int64_t now_unix_ns,
                                      absl::FunctionRef<uint64_t()> new_session_id,
                                      Changes& changes);
  absl::Status DeleteOldest(store::Store& store, std::vector<uint64_t>& deleted);
  void Forget(uint64_t session_id);

  const RetentionPolicy policy_;
  struct Measured {
    int64_t start_time_unix_ns = 0;
    uint64_t bytes = 0;
  };
  std::map<uint64_t, Measured> measured_;          // by session id
  std::set<std::pair<int64_t, uint64_t>> by_age_;  // (start, session id): oldest first
  uint64_t history_bytes_ = 0;
  RetentionCounters counters_;
  std::optional<PeriodMerge> merging_;  // a period being made, over as many steps as it takes
};

}  // namespace protond::always_on

#endif  // PROTOND_DAEMON_ALWAYS_ON_HISTORY_RETENTION_H_
