#include "daemon/always_on/history_retention.h"

#include <algorithm>

#include "common/status/status_macros.h"

namespace protond::always_on {

absl::Status HistoryRetention::Step(store::Store& store, const std::vector<StoppedWindow>& windows,
                                    std::chrono::steady_clock::time_point deadline,
                                    std::vector<uint64_t>& deleted) {
  const auto out_of_time = [deadline] { return std::chrono::steady_clock::now() >= deadline; };
  // Oldest first: while a backlog is measured (a restart over a large history), the measured
  // windows are the oldest ones, so the cap never deletes a window before an older one.
  std::vector<StoppedWindow> by_age = windows;
  std::sort(by_age.begin(), by_age.end(), [](const StoppedWindow& a, const StoppedWindow& b) {
    return std::pair(a.start_time_unix_ns, a.session_id) <
           std::pair(b.start_time_unix_ns, b.session_id);
  });
  for (const StoppedWindow& window : by_age) {
    if (measured_.contains(window.session_id)) continue;
    if (out_of_time()) return absl::OkStatus();
    RETURN_IF_ERROR(Measure(store, window, deleted));
  }
  while (history_bytes_ > policy_.history_max_bytes && !by_age_.empty()) {
    if (out_of_time()) return absl::OkStatus();
    RETURN_IF_ERROR(DeleteOldest(store, deleted));
  }
  return absl::OkStatus();
}

absl::Status HistoryRetention::Measure(store::Store& store, const StoppedWindow& window,
                                       std::vector<uint64_t>& deleted) {
  if (window.records == 0 && window.dropped_records == 0) {
    RETURN_IF_ERROR(store.DeleteHistorySession(window.session_id));
    deleted.push_back(window.session_id);
    ++counters_.empty_windows_deleted;
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(const uint64_t bytes, store.SessionStoredBytes(window.session_id));
  measured_[window.session_id] = {window.start_time_unix_ns, bytes};
  by_age_.emplace(window.start_time_unix_ns, window.session_id);
  history_bytes_ += bytes;
  return absl::OkStatus();
}

absl::Status HistoryRetention::DeleteOldest(store::Store& store, std::vector<uint64_t>& deleted) {
  const uint64_t session_id = by_age_.begin()->second;
  RETURN_IF_ERROR(store.DeleteHistorySession(session_id));
  deleted.push_back(session_id);
  const uint64_t bytes = measured_[session_id].bytes;
  measured_.erase(session_id);
  by_age_.erase(by_age_.begin());
  history_bytes_ -= bytes;
  ++counters_.windows_deleted_for_cap;
  counters_.bytes_deleted_for_cap += bytes;
  return absl::OkStatus();
}

}  // namespace protond::always_on
