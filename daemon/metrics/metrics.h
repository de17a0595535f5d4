// What protond tells Prometheus: a snapshot of its counters (taken by ProtondService under its
// mutex) and the text exposition format 0.0.4 that `GET /metrics` answers with
// (metrics_server.h serves it), written by prometheus-cpp's TextSerializer from the snapshot.
// Pure data and a pure function: no locks, no I/O.
#ifndef PROTOND_DAEMON_METRICS_METRICS_H_
#define PROTOND_DAEMON_METRICS_METRICS_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace protond::metrics {

// How long commits took, in Prometheus' histogram buckets. Not thread-safe: its owner's lock
// guards it (ProtondService's mutex, held through the ingest cycle).
class LatencyHistogram {
 public:
  // Upper bounds of the buckets in seconds; one more bucket, +Inf, follows. A commit of a quiet
  // node takes well under a millisecond, one of a busy node tens of them, a slow disk seconds.
  static constexpr std::array<double, 13> kBoundsSeconds = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};

  void Observe(std::chrono::nanoseconds duration);

  // Per bucket, not cumulative; the last is the +Inf bucket.
  const std::array<uint64_t, kBoundsSeconds.size() + 1>& bucket_counts() const { return counts_; }
  uint64_t count() const { return count_; }
  double sum_seconds() const { return sum_seconds_; }

 private:
  std::array<uint64_t, kBoundsSeconds.size() + 1> counts_{};
  uint64_t count_ = 0;
  double sum_seconds_ = 0;
};

struct SessionCounters {
  uint64_t session_id = 0;
  std::string name_untrusted;  // chosen by whoever started the session
  uint64_t records = 0;
  uint64_t dropped_records = 0;
};

// protond --always-on, per connected process (docs/always-on.md, "Metrics"): its newest stopped
// window that protond has summarized, and its windows kept and not had.
struct ProcessWindowGauges {
  uint32_t pid = 0;
  std::string command_untrusted;
  std::string job_untrusted;        // SLURM_JOB_ID, else POD_NAME; "" for none
  uint64_t windows_stored = 0;      // windows of it in the history now
  uint64_t windows_skipped = 0;     // windows it did not get: it was in a session started by hand
  bool has_last_window = false;     // the gauges below are set
  double last_window_gpu_busy = 0;  // GPU time over the window's length and GPUs: 0 without work
  std::string last_window_top_kernel_untrusted;  // "" without GPU work
  double last_window_top_kernel_share = 0;       // of the window's GPU time
};

// protond --always-on, per job (docs/jobs.md, "Live"): the verdict of its newest window whose
// collective calls were judged (view/history/window_verdict.h).
struct JobVerdictGauges {
  std::string job_untrusted;     // SLURM_JOB_ID, else POD_NAME
  int late_rank = -1;            // the rank named late; -1 for none
  double late_mean_seconds = 0;  // its mean lateness after the first rank; 0 for none
  double wait_share = 0;         // the others' wait over their time in the window
};

struct Snapshot {
  uint64_t processes_connected = 0;  // registered processes whose control connection is open
  uint64_t sessions_running = 0;
  std::vector<SessionCounters> sessions;  // the running ones and those stopped lately
  uint64_t store_bytes = 0;               // the database file and its write-ahead log
  uint64_t commit_failures = 0;
  LatencyHistogram commit_duration;  // successful commits of the ingest cycle
  // protond --always-on (docs/always-on.md): windows opened, and windows a process did not get
  // because it was in a session started by hand. 0 without --always-on.
  uint64_t always_on_windows_opened = 0;
  uint64_t always_on_windows_skipped = 0;
  // The history's retention (docs/always-on.md, "Retention"): the bytes of the stopped windows
  // kept (as Store::SessionStoredBytes measures them), windows deleted because nothing was
  // recorded in them, and windows deleted, oldest first, to keep under --history-max.
  uint64_t history_bytes = 0;
  uint64_t history_empty_windows_deleted = 0;
  uint64_t history_windows_deleted = 0;
  // Periods made (docs/always-on.md, "Retention"): hours, each replacing an hour's windows of a
  // process or job, and days, each replacing a day's hours.
  uint64_t history_hours_made = 0;
  uint64_t history_days_made = 0;
  std::vector<ProcessWindowGauges> always_on_processes;  // by pid
  std::vector<JobVerdictGauges> always_on_jobs;          // by job
};

// The snapshot in the text exposition format 0.0.4: HELP and TYPE lines, then the samples, each
// metric family once, label values escaped (and invalid UTF-8 replaced) as the format requires.
// Values are the format's float64: counts are exact up to 2^53.
std::string RenderText(const Snapshot& snapshot);

// `value_untrusted` with each byte that is not part of valid UTF-8 replaced by U+FFFD, as the
// format wants its label values (the serializer escapes backslash, double quote and line feed,
// but passes bytes through as they are).
std::string ReplaceInvalidUtf8(const std::string& value_untrusted);

}  // namespace protond::metrics

#endif  // PROTOND_DAEMON_METRICS_METRICS_H_
