#include "daemon/metrics/metrics.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/text/utf8.h"
#include "prometheus/client_metric.h"
#include "prometheus/metric_family.h"
#include "prometheus/text_serializer.h"

namespace protond::metrics {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

constexpr char kReplacementCharacter[] = "\xEF\xBF\xBD";  // U+FFFD

// A family of one series without labels.
MetricFamily Single(const char* name, MetricType type, const char* help, double value) {
  ClientMetric metric;
  (type == MetricType::Counter ? metric.counter.value : metric.gauge.value) = value;
  return {name, help, type, {metric}};
}

// One series per session, labelled in this order: session, name.
MetricFamily PerSession(const Snapshot& snapshot, const char* name, const char* help,
                        uint64_t SessionCounters::*counter) {
  MetricFamily family{name, help, MetricType::Counter, {}};
  for (const SessionCounters& session : snapshot.sessions) {
    ClientMetric& metric = family.metric.emplace_back();
    metric.label = {{"session", absl::StrCat(session.session_id)},
                    {"name", ReplaceInvalidUtf8(session.name_untrusted)}};
    metric.counter.value = static_cast<double>(session.*counter);
  }
  return family;
}

// One series per always-on process, labelled pid, command, job (and kernel, for its family),
// for the processes that `has` says have a value.
MetricFamily PerProcess(const Snapshot& snapshot, const char* name, MetricType type,
                        const char* help, bool with_kernel,
                        double (*value)(const ProcessWindowGauges&),
                        bool (*has)(const ProcessWindowGauges&)) {
  MetricFamily family{name, help, type, {}};
  for (const ProcessWindowGauges& process : snapshot.always_on_processes) {
    if (!has(process)) continue;
    ClientMetric& metric = family.metric.emplace_back();
    metric.label = {{"pid", absl::StrCat(process.pid)},
                    {"command", ReplaceInvalidUtf8(process.command_untrusted)},
                    {"job", ReplaceInvalidUtf8(process.job_untrusted)}};
    if (with_kernel) {
      metric.label.push_back(
          {"kernel", ReplaceInvalidUtf8(process.last_window_top_kernel_untrusted)});
    }
    (type == MetricType::Counter ? metric.counter.value : metric.gauge.value) = value(process);
  }
  return family;
}

// One series per always-on job, labelled job.
MetricFamily PerJob(const Snapshot& snapshot, const char* name, const char* help,
                    double (*value)(const JobVerdictGauges&)) {
  MetricFamily family{name, help, MetricType::Gauge, {}};
  for (const JobVerdictGauges& job : snapshot.always_on_jobs) {
    ClientMetric& metric = family.metric.emplace_back();
    metric.label = {{"job", ReplaceInvalidUtf8(job.job_untrusted)}};
    metric.gauge.value = value(job);
  }
  return family;
}

// The hours and days made, a series each, labelled period (promtool refuses a unit in the name).
MetricFamily PeriodsMade(const Snapshot& snapshot) {
  MetricFamily family{"protond_history_periods_made_total",
                      "Periods of always-on history made: hours, each replacing one process's or "
                      "job's windows of an hour (--keep-windows), and days, each replacing its "
                      "hours of a day (--keep-hourly).",
                      MetricType::Counter,
                      {}};
  for (const auto& [period, made] : {std::pair{"hour", snapshot.history_hours_made},
                                     std::pair{"day", snapshot.history_days_made}}) {
    ClientMetric& metric = family.metric.emplace_back();
    metric.label = {{"period", period}};
    metric.counter.value = static_cast<double>(made);
  }
  return family;
}

bool Always(const ProcessWindowGauges&) { return true; }
bool HasLastWindow(const ProcessWindowGauges& p) { return p.has_last_window; }
bool HasTopKernel(const ProcessWindowGauges& p) {
  return p.has_last_window && !p.last_window_top_kernel_untrusted.empty();
}

MetricFamily Histogram(const char* name, const char* help, const LatencyHistogram& histogram) {
  ClientMetric metric;
  metric.histogram.sample_count = histogram.count();
  metric.histogram.sample_sum = histogram.sum_seconds();
  uint64_t cumulative = 0;
  for (size_t i = 0; i < histogram.bucket_counts().size(); ++i) {
    cumulative += histogram.bucket_counts()[i];
    const double bound = i < LatencyHistogram::kBoundsSeconds.size()
                             ? LatencyHistogram::kBoundsSeconds[i]
                             : std::numeric_limits<double>::infinity();
    metric.histogram.bucket.push_back({cumulative, bound});
  }
  return {name, help, MetricType::Histogram, {metric}};
}

}  // namespace

void LatencyHistogram::Observe(std::chrono::nanoseconds duration) {
  const double seconds = std::chrono::duration<double>(duration).count();
  const auto bucket = std::lower_bound(kBoundsSeconds.begin(), kBoundsSeconds.end(), seconds) -
                      kBoundsSeconds.begin();
  ++counts_[bucket];
  ++count_;
  sum_seconds_ += seconds;
}

std::string ReplaceInvalidUtf8(const std::string& value_untrusted) {
  std::string out;
  absl::string_view rest = value_untrusted;
  while (!rest.empty()) {
    uint32_t code_point;
    const size_t length = text::DecodeUtf8(rest, &code_point);
    if (length == 0) {
      out += kReplacementCharacter;
      rest.remove_prefix(1);
      continue;
    }
    out.append(rest.data(), length);
    rest.remove_prefix(length);
  }
  return out;
}

std::string RenderText(const Snapshot& snapshot) {
  const std::vector<MetricFamily> families = {
      Single("protond_processes_connected", MetricType::Gauge,
             "Registered processes whose control connection to protond is open.",
             static_cast<double>(snapshot.processes_connected)),
      Single("protond_sessions_running", MetricType::Gauge, "Sessions that are recording.",
             static_cast<double>(snapshot.sessions_running)),
      PerSession(snapshot, "protond_session_records_total",
                 "Records ingested into the session, over all its processes.",
                 &SessionCounters::records),
      PerSession(snapshot, "protond_session_dropped_records_total",
                 "Records the session's processes could not write: their ring was full, or no "
                 "lane was free.",
                 &SessionCounters::dropped_records),
      Single("protond_store_size_bytes", MetricType::Gauge,
             "Size of the store: the SQLite database and its write-ahead log.",
             static_cast<double>(snapshot.store_bytes)),
      Single("protond_commit_failures_total", MetricType::Counter,
             "Commits of the ingest cycle that failed (they are tried again).",
             static_cast<double>(snapshot.commit_failures)),
      Single("protond_always_on_windows_opened_total", MetricType::Counter,
             "Windows of protond --always-on opened (one per process or job and period).",
             static_cast<double>(snapshot.always_on_windows_opened)),
      Single("protond_always_on_windows_skipped_total", MetricType::Counter,
             "Windows of protond --always-on that a process did not get: it was in a session "
             "started by hand.",
             static_cast<double>(snapshot.always_on_windows_skipped)),
      Single("protond_history_bytes", MetricType::Gauge,
             "Bytes of the always-on windows kept in the store (their rows, as measured when "
             "they stopped).",
             static_cast<double>(snapshot.history_bytes)),
      Single("protond_history_empty_windows_deleted_total", MetricType::Counter,
             "Always-on windows deleted when they stopped because nothing was recorded in them.",
             static_cast<double>(snapshot.history_empty_windows_deleted)),
      Single("protond_history_windows_deleted_total", MetricType::Counter,
             "Always-on windows deleted, oldest first, to keep the history under --history-max.",
             static_cast<double>(snapshot.history_windows_deleted)),
      PeriodsMade(snapshot),
      PerProcess(
          snapshot, "protond_always_on_process_windows_stored", MetricType::Gauge,
          "Always-on windows of the process kept in the history now.", false,
          [](const ProcessWindowGauges& p) { return static_cast<double>(p.windows_stored); },
          Always),
      PerProcess(
          snapshot, "protond_always_on_process_windows_skipped_total", MetricType::Counter,
          "Always-on windows the process did not get: it was in a session started by "
          "hand.",
          false,
          [](const ProcessWindowGauges& p) { return static_cast<double>(p.windows_skipped); },
          Always),
      PerProcess(
          snapshot, "protond_always_on_last_window_gpu_busy_ratio", MetricType::Gauge,
          "GPU busy share of the process's newest summarized always-on window: its GPU "
          "time over the window's length times the GPUs it used (0 without GPU work).",
          false, [](const ProcessWindowGauges& p) { return p.last_window_gpu_busy; },
          HasLastWindow),
      PerProcess(
          snapshot, "protond_always_on_last_window_top_kernel_share", MetricType::Gauge,
          "Share of that window's GPU time taken by its heaviest kernel (label kernel).", true,
          [](const ProcessWindowGauges& p) { return p.last_window_top_kernel_share; },
          HasTopKernel),
      PerJob(snapshot, "protond_job_late_rank",
             "Rank the others waited for in the job's newest always-on window with enough judged "
             "NCCL collective calls to name one (9); -1 when no rank was late.",
             [](const JobVerdictGauges& j) { return static_cast<double>(j.late_rank); }),
      PerJob(snapshot, "protond_job_late_mean_seconds",
             "Mean lateness of that rank after the first rank to arrive, in that window; 0 when "
             "no rank was late.",
             [](const JobVerdictGauges& j) { return j.late_mean_seconds; }),
      PerJob(snapshot, "protond_job_wait_share",
             "The other ranks' wait for the last one in that window, over their time in it "
             "(the window's length times their number).",
             [](const JobVerdictGauges& j) { return j.wait_share; }),
      Histogram("protond_commit_duration_seconds",
                "Time of each successful commit of the ingest cycle to the store.",
                snapshot.commit_duration),
  };
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace protond::metrics
