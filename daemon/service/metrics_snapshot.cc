// ProtondService: the snapshot that GET /metrics renders (daemon/metrics/metrics.h).
#include <sys/stat.h>

#include "daemon/service/protond_service.h"

namespace protond::service {
namespace {

// 0 for a file that is not there (no write-ahead log between checkpoints, say).
uint64_t FileBytes(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

}  // namespace

metrics::Snapshot ProtondService::MetricsSnapshot() {
  metrics::Snapshot snapshot;
  const int64_t stopped_since_ns =
      sessions::NowUnixNs() - std::chrono::nanoseconds(kStoppedSessionMetricsFor).count();
  {
    absl::MutexLock lock(&mutex_);
    snapshot.processes_connected = registry_.ConnectedCount();
    for (const auto& [id, session] : sessions_.all()) {
      const bool running = session.row.state == store::SessionState::kRunning;
      snapshot.sessions_running += running;
      if (!running && session.row.end_time_unix_ns < stopped_since_ns) continue;
      metrics::SessionCounters& counters = snapshot.sessions.emplace_back();
      counters.session_id = id;
      counters.name_untrusted = session.row.name;
      for (const auto& [process_id, process] : session.processes) {
        counters.records += process.records;
        counters.dropped_records += process.dropped_records;
      }
    }
    snapshot.commit_failures = cycle_.commit_failures();
    snapshot.commit_duration = cycle_.commit_duration();
    if (windows_ != nullptr) {
      snapshot.always_on_windows_opened = windows_->windows_opened();
      snapshot.always_on_windows_skipped = windows_->windows_skipped();
    }
    if (retention_ != nullptr) {
      snapshot.history_bytes = retention_->history_bytes();
      snapshot.history_empty_windows_deleted = retention_->counters().empty_windows_deleted;
      snapshot.history_windows_deleted = retention_->counters().windows_deleted_for_cap;
    }
  }
  // The store's files are sized outside the lock: no need to hold up the ingest cycle for it.
  snapshot.store_bytes = FileBytes(options_.store_path) + FileBytes(options_.store_path + "-wal");
  return snapshot;
}

}  // namespace protond::service
