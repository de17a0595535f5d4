// Retention of the always-on history (protond --history-max, docs/always-on.md "Retention"):
// which stopped windows leave the store. A window in which nothing was recorded (no record, none
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
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "daemon/store/store.h"

namespace protond::always_on {

struct RetentionPolicy {
  uint64_t history_max_bytes = uint64_t{2} << 30;  // --history-max, 2 GiB
};

// A stopped window as the daemon holds it, committed as it is.
struct StoppedWindow {
  uint64_t session_id = 0;
  int64_t start_time_unix_ns = 0;
  uint64_t records = 0;  // over all its processes
  uint64_t dropped_records = 0;
};

struct RetentionCounters {
  uint64_t empty_windows_deleted = 0;
  uint64_t windows_deleted_for_cap = 0;
  uint64_t bytes_deleted_for_cap = 0;
};

class HistoryRetention {
 public:
  explicit HistoryRetention(RetentionPolicy policy) : policy_(policy) {}

  // Deletes from `store` the empty windows of `windows` (every stopped window the daemon holds),
  // measures the others, then deletes the oldest while the measured ones pass the cap; returns at
  // `deadline` (checked before each store call). Appends each deleted session id to `deleted`,
  // also when a store call fails: the caller forgets them either way.
  absl::Status Step(store::Store& store, const std::vector<StoppedWindow>& windows,
                    std::chrono::steady_clock::time_point deadline, std::vector<uint64_t>& deleted);

  // The bytes of the windows measured so far (all of them once a Step has had the time).
  uint64_t history_bytes() const { return history_bytes_; }
  const RetentionCounters& counters() const { return counters_; }
  const RetentionPolicy& policy() const { return policy_; }

 private:
  absl::Status Measure(store::Store& store, const StoppedWindow& window,
                       std::vector<uint64_t>& deleted);
  absl::Status DeleteOldest(store::Store& store, std::vector<uint64_t>& deleted);

  const RetentionPolicy policy_;
  struct Measured {
    int64_t start_time_unix_ns = 0;
    uint64_t bytes = 0;
  };
  std::map<uint64_t, Measured> measured_;          // by session id
  std::set<std::pair<int64_t, uint64_t>> by_age_;  // (start, session id): oldest first
  uint64_t history_bytes_ = 0;
  RetentionCounters counters_;
};

}  // namespace protond::always_on

#endif  // PROTOND_DAEMON_ALWAYS_ON_HISTORY_RETENTION_H_
