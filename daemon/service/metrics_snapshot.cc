// ProtondService: the snapshot that GET /metrics renders (daemon/metrics/metrics.h).
#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "daemon/service/protond_service.h"
#include "view/history/window_summary.h"
#include "view/jobs/verdict.h"

namespace protond::service {
namespace {

// 0 for a file that is not there (no write-ahead log between checkpoints, say).
uint64_t FileBytes(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// A window of the always-on history, not a period that merged windows, nor a session started by
// hand.
bool IsWindow(const sessions::Session& session) {
  return session.row.always_on_window && session.row.period == store::HistoryPeriod::kWindow;
}

// The last-window gauges from `window`, a summarized one: called for each in id order, so the
// newest is what stays.
void SetLastWindow(const sessions::Session& window, metrics::ProcessWindowGauges* gauges) {
  const v1::WindowSummary summary = sessions::WindowSummaryToProto(*window.row.window_summary);
  const view::WindowShares shares = view::SharesOfWindow(
      summary, static_cast<double>(window.row.end_time_unix_ns - window.row.start_time_unix_ns));
  gauges->has_last_window = true;
  gauges->last_window_gpu_busy = shares.gpu_busy.value_or(0);
  gauges->last_window_top_kernel_untrusted = summary.top_kernel();
  gauges->last_window_top_kernel_share = shares.top_kernel_share.value_or(0);
}

}  // namespace

std::vector<metrics::ProcessWindowGauges> ProtondService::AlwaysOnProcessGauges() {
  std::map<uint64_t, metrics::ProcessWindowGauges> by_process;
  for (const auto& [process_id, process] : registry_.Snapshot()) {
    if (!process->connected) continue;
    metrics::ProcessWindowGauges& gauges = by_process[process_id];
    gauges.pid = process->row.pid;
    gauges.command_untrusted = process->row.command;
    gauges.job_untrusted = process->row.job.name();
    const auto skipped = windows_->skipped_by_process().find(process_id);
    if (skipped != windows_->skipped_by_process().end()) gauges.windows_skipped = skipped->second;
  }
  // Windows only: a period (an hour or a day, made later with a larger id) is not the last window.
  for (const auto& [session_id, window] : sessions_.all()) {
    if (!IsWindow(window) || window.running()) continue;
    for (const auto& [process_id, counters] : window.processes) {
      auto found = by_process.find(process_id);
      if (found == by_process.end()) continue;
      ++found->second.windows_stored;
      if (window.row.window_summary.has_value()) SetLastWindow(window, &found->second);
    }
  }
  std::vector<metrics::ProcessWindowGauges> gauges;
  for (auto& [process_id, process] : by_process) gauges.push_back(std::move(process));
  std::sort(gauges.begin(), gauges.end(),
            [](const auto& a, const auto& b) { return a.pid < b.pid; });
  return gauges;
}

std::vector<metrics::JobVerdictGauges> ProtondService::AlwaysOnJobGauges(int64_t now_unix_ns) {
  const int64_t period_ns = std::chrono::nanoseconds(windows_->policy().period).count();
  const int64_t recent_since_ns = now_unix_ns - kJobVerdictPeriods * period_ns;
  std::map<std::string, bool> recent;  // by job: a window of it started lately
  std::map<std::string, const store::WindowVerdictRow*> newest;  // by job: its newest judged
  // In id order: a later window replaces an earlier one.
  for (const auto& [session_id, window] : sessions_.all()) {
    if (!IsWindow(window) || window.row.job.empty()) continue;
    recent[window.row.job] |= window.row.start_time_unix_ns >= recent_since_ns;
    const std::optional<store::WindowSummaryRow>& summary = window.row.window_summary;
    // A window with too few calls to name any rank (the job's last one, cut short by its end)
    // does not replace the newest that could have: two ranks need the most calls.
    if (summary.has_value() &&
        summary->verdict.judged_calls >= view::MinCallsToNameARank(2, view::VerdictOptions())) {
      newest[window.row.job] = &summary->verdict;
    }
  }
  std::vector<metrics::JobVerdictGauges> gauges;
  for (const auto& [job, verdict] : newest) {
    if (!recent[job]) continue;
    gauges.push_back(
        {job, verdict->late_rank, verdict->late_mean_ns / 1e9, verdict->others_wait_share});
  }
  return gauges;
}

metrics::Snapshot ProtondService::MetricsSnapshot() {
  metrics::Snapshot snapshot;
  const int64_t now_unix_ns = sessions::NowUnixNs();
  const int64_t stopped_since_ns =
      now_unix_ns - std::chrono::nanoseconds(kStoppedSessionMetricsFor).count();
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
      snapshot.always_on_processes = AlwaysOnProcessGauges();
      snapshot.always_on_jobs = AlwaysOnJobGauges(now_unix_ns);
    }
    if (retention_ != nullptr) {
      snapshot.history_bytes = retention_->history_bytes();
      snapshot.history_empty_windows_deleted = retention_->counters().empty_windows_deleted;
      snapshot.history_windows_deleted = retention_->counters().windows_deleted_for_cap;
      snapshot.history_hours_made = retention_->counters().hours_made;
      snapshot.history_days_made = retention_->counters().days_made;
    }
  }
  // The store's files are sized outside the lock: no need to hold up the ingest cycle for it.
  snapshot.store_bytes = FileBytes(options_.store_path) + FileBytes(options_.store_path + "-wal");
  return snapshot;
}

}  // namespace protond::service
