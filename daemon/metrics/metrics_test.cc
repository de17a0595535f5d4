#include "daemon/metrics/metrics.h"

#include <chrono>

#include "gtest/gtest.h"

namespace protond::metrics {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(LatencyHistogramTest, ABoundBelongsToItsOwnBucket) {
  LatencyHistogram histogram;
  histogram.Observe(nanoseconds(500'000));  // 0.0005 s: le="0.0005"
  histogram.Observe(nanoseconds(500'001));  // le="0.001"
  histogram.Observe(std::chrono::seconds(5));
  histogram.Observe(std::chrono::seconds(6));  // +Inf
  const auto& counts = histogram.bucket_counts();
  EXPECT_EQ(counts[0], 1u);
  EXPECT_EQ(counts[1], 1u);
  EXPECT_EQ(counts[12], 1u);
  EXPECT_EQ(counts[13], 1u);
  EXPECT_EQ(histogram.count(), 4u);
}

TEST(ReplaceInvalidUtf8Test, KeepsValidUtf8AndReplacesEachInvalidByte) {
  EXPECT_EQ(ReplaceInvalidUtf8("plain name"), "plain name");
  EXPECT_EQ(ReplaceInvalidUtf8("a\"b\\c\nd"), "a\"b\\c\nd");  // the serializer escapes these
  EXPECT_EQ(ReplaceInvalidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x94\xA5"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x94\xA5");
  // A stray continuation byte, a truncated sequence, an overlong '/', a surrogate, past U+10FFFF.
  EXPECT_EQ(ReplaceInvalidUtf8("x\x80y"), "x\xEF\xBF\xBDy");
  EXPECT_EQ(ReplaceInvalidUtf8("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ReplaceInvalidUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ReplaceInvalidUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ReplaceInvalidUtf8("\xF4\x90\x80\x80"),
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(RenderTextTest, AnEmptyDaemon) {
  EXPECT_EQ(
      RenderText({}),
      R"(# HELP protond_processes_connected Registered processes whose control connection to protond is open.
# TYPE protond_processes_connected gauge
protond_processes_connected 0
# HELP protond_sessions_running Sessions that are recording.
# TYPE protond_sessions_running gauge
protond_sessions_running 0
# HELP protond_session_records_total Records ingested into the session, over all its processes.
# TYPE protond_session_records_total counter
# HELP protond_session_dropped_records_total Records the session's processes could not write: their ring was full, or no lane was free.
# TYPE protond_session_dropped_records_total counter
# HELP protond_store_size_bytes Size of the store: the SQLite database and its write-ahead log.
# TYPE protond_store_size_bytes gauge
protond_store_size_bytes 0
# HELP protond_commit_failures_total Commits of the ingest cycle that failed (they are tried again).
# TYPE protond_commit_failures_total counter
protond_commit_failures_total 0
# HELP protond_always_on_windows_opened_total Windows of protond --always-on opened (one per process or job and period).
# TYPE protond_always_on_windows_opened_total counter
protond_always_on_windows_opened_total 0
# HELP protond_always_on_windows_skipped_total Windows of protond --always-on that a process did not get: it was in a session started by hand.
# TYPE protond_always_on_windows_skipped_total counter
protond_always_on_windows_skipped_total 0
# HELP protond_history_bytes Bytes of the always-on windows kept in the store (their rows, as measured when they stopped).
# TYPE protond_history_bytes gauge
protond_history_bytes 0
# HELP protond_history_empty_windows_deleted_total Always-on windows deleted when they stopped because nothing was recorded in them.
# TYPE protond_history_empty_windows_deleted_total counter
protond_history_empty_windows_deleted_total 0
# HELP protond_history_windows_deleted_total Always-on windows deleted, oldest first, to keep the history under --history-max.
# TYPE protond_history_windows_deleted_total counter
protond_history_windows_deleted_total 0
# HELP protond_history_periods_made_total Periods of always-on history made: hours, each replacing one process's or job's windows of an hour (--keep-windows), and days, each replacing its hours of a day (--keep-hourly).
# TYPE protond_history_periods_made_total counter
protond_history_periods_made_total{period="hour"} 0
protond_history_periods_made_total{period="day"} 0
# HELP protond_always_on_process_windows_stored Always-on windows of the process kept in the history now.
# TYPE protond_always_on_process_windows_stored gauge
# HELP protond_always_on_process_windows_skipped_total Always-on windows the process did not get: it was in a session started by hand.
# TYPE protond_always_on_process_windows_skipped_total counter
# HELP protond_always_on_last_window_gpu_busy_ratio GPU busy share of the process's newest summarized always-on window: its GPU time over the window's length times the GPUs it used (0 without GPU work).
# TYPE protond_always_on_last_window_gpu_busy_ratio gauge
# HELP protond_always_on_last_window_top_kernel_share Share of that window's GPU time taken by its heaviest kernel (label kernel).
# TYPE protond_always_on_last_window_top_kernel_share gauge
# HELP protond_job_late_rank Rank the others waited for in the job's newest always-on window with enough judged NCCL collective calls to name one (9); -1 when no rank was late.
# TYPE protond_job_late_rank gauge
# HELP protond_job_late_mean_seconds Mean lateness of that rank after the first rank to arrive, in that window; 0 when no rank was late.
# TYPE protond_job_late_mean_seconds gauge
# HELP protond_job_wait_share The other ranks' wait for the last one in that window, over their time in it (the window's length times their number).
# TYPE protond_job_wait_share gauge
# HELP protond_commit_duration_seconds Time of each successful commit of the ingest cycle to the store.
# TYPE protond_commit_duration_seconds histogram
protond_commit_duration_seconds_count 0
protond_commit_duration_seconds_sum 0
protond_commit_duration_seconds_bucket{le="0.0005"} 0
protond_commit_duration_seconds_bucket{le="0.001"} 0
protond_commit_duration_seconds_bucket{le="0.0025"} 0
protond_commit_duration_seconds_bucket{le="0.005"} 0
protond_commit_duration_seconds_bucket{le="0.01"} 0
protond_commit_duration_seconds_bucket{le="0.025"} 0
protond_commit_duration_seconds_bucket{le="0.05"} 0
protond_commit_duration_seconds_bucket{le="0.1"} 0
protond_commit_duration_seconds_bucket{le="0.25"} 0
protond_commit_duration_seconds_bucket{le="0.5"} 0
protond_commit_duration_seconds_bucket{le="1"} 0
protond_commit_duration_seconds_bucket{le="2.5"} 0
protond_commit_duration_seconds_bucket{le="5"} 0
protond_commit_duration_seconds_bucket{le="+Inf"} 0
)");
}

TEST(RenderTextTest, SessionsAndCommits) {
  Snapshot snapshot;
  snapshot.processes_connected = 3;
  snapshot.sessions_running = 1;
  snapshot.sessions = {{1, "warmup", 1234, 0}, {7, "say \"hi\"\\\n\xFF", 9007199254740992u, 5}};
  snapshot.store_bytes = 4096 * 25;
  snapshot.commit_failures = 2;
  snapshot.always_on_windows_opened = 12;
  snapshot.always_on_windows_skipped = 3;
  snapshot.history_bytes = 123456;
  snapshot.history_empty_windows_deleted = 4;
  snapshot.history_windows_deleted = 5;
  snapshot.history_hours_made = 6;
  snapshot.history_days_made = 7;
  // Durations whose seconds are exact in binary, so that the sum is too.
  snapshot.commit_duration.Observe(nanoseconds(1'953'125));   // 1/512 s: le="0.0025"
  snapshot.commit_duration.Observe(milliseconds(250));        // le="0.25"
  snapshot.commit_duration.Observe(milliseconds(500));        // le="0.5"
  snapshot.commit_duration.Observe(std::chrono::seconds(8));  // +Inf
  const std::string text = RenderText(snapshot);
  const auto section = [&text](const std::string& from, const std::string& to) {
    const size_t begin = text.find(from);
    return text.substr(begin, text.find(to, begin) - begin);
  };
  EXPECT_EQ(section("protond_processes_connected 3", "#"), "protond_processes_connected 3\n");
  EXPECT_EQ(section("protond_sessions_running 1", "#"), "protond_sessions_running 1\n");
  EXPECT_EQ(section("protond_session_records_total{", "#"),
            "protond_session_records_total{session=\"1\",name=\"warmup\"} 1234\n"
            "protond_session_records_total{session=\"7\","
            "name=\"say \\\"hi\\\"\\\\\\n\xEF\xBF\xBD\"} 9007199254740992\n");
  EXPECT_EQ(section("protond_session_dropped_records_total{", "#"),
            "protond_session_dropped_records_total{session=\"1\",name=\"warmup\"} 0\n"
            "protond_session_dropped_records_total{session=\"7\","
            "name=\"say \\\"hi\\\"\\\\\\n\xEF\xBF\xBD\"} 5\n");
  EXPECT_EQ(section("protond_store_size_bytes 1", "#"), "protond_store_size_bytes 102400\n");
  EXPECT_EQ(section("protond_commit_failures_total 2", "#"), "protond_commit_failures_total 2\n");
  EXPECT_EQ(section("protond_always_on_windows_opened_total 1", "#"),
            "protond_always_on_windows_opened_total 12\n");
  EXPECT_EQ(section("protond_always_on_windows_skipped_total 3", "#"),
            "protond_always_on_windows_skipped_total 3\n");
  EXPECT_EQ(section("protond_history_bytes 1", "#"), "protond_history_bytes 123456\n");
  EXPECT_EQ(section("protond_history_empty_windows_deleted_total 4", "#"),
            "protond_history_empty_windows_deleted_total 4\n");
  EXPECT_EQ(section("protond_history_windows_deleted_total 5", "#"),
            "protond_history_windows_deleted_total 5\n");
  EXPECT_EQ(section("protond_history_periods_made_total{", "#"),
            "protond_history_periods_made_total{period=\"hour\"} 6\n"
            "protond_history_periods_made_total{period=\"day\"} 7\n");
  EXPECT_EQ(section("protond_commit_duration_seconds_count", "\n\n"),
            R"(protond_commit_duration_seconds_count 4
protond_commit_duration_seconds_sum 8.751953125
protond_commit_duration_seconds_bucket{le="0.0005"} 0
protond_commit_duration_seconds_bucket{le="0.001"} 0
protond_commit_duration_seconds_bucket{le="0.0025"} 1
protond_commit_duration_seconds_bucket{le="0.005"} 1
protond_commit_duration_seconds_bucket{le="0.01"} 1
protond_commit_duration_seconds_bucket{le="0.025"} 1
protond_commit_duration_seconds_bucket{le="0.05"} 1
protond_commit_duration_seconds_bucket{le="0.1"} 1
protond_commit_duration_seconds_bucket{le="0.25"} 2
protond_commit_duration_seconds_bucket{le="0.5"} 3
protond_commit_duration_seconds_bucket{le="1"} 3
protond_commit_duration_seconds_bucket{le="2.5"} 3
protond_commit_duration_seconds_bucket{le="5"} 3
protond_commit_duration_seconds_bucket{le="+Inf"} 4
)");
}

// Per always-on process: labelled by pid, command and job; the last window's gauges only for a
// process that has a summarized window, the kernel's only where it had GPU work.
TEST(RenderTextTest, AlwaysOnProcesses) {
  Snapshot snapshot;
  ProcessWindowGauges trainer;
  trainer.pid = 41;
  trainer.command_untrusted = "python train.py";
  trainer.job_untrusted = "981";
  trainer.windows_stored = 12;
  trainer.windows_skipped = 2;
  trainer.has_last_window = true;
  trainer.last_window_gpu_busy = 0.5;
  trainer.last_window_top_kernel_untrusted = "sm90_xmma_gemm";
  trainer.last_window_top_kernel_share = 0.25;
  ProcessWindowGauges idle;
  idle.pid = 42;
  idle.command_untrusted = "bash";
  idle.windows_stored = 1;
  ProcessWindowGauges cpu_only = idle;
  cpu_only.pid = 43;
  cpu_only.has_last_window = true;
  snapshot.always_on_processes = {trainer, idle, cpu_only};
  const std::string text = RenderText(snapshot);
  const std::string trainer_labels = R"(pid="41",command="python train.py",job="981")";
  const std::string idle_labels = R"(pid="42",command="bash",job="")";
  const std::string cpu_labels = R"(pid="43",command="bash",job="")";
  for (const std::string& line :
       {"protond_always_on_process_windows_stored{" + trainer_labels + "} 12\n",
        "protond_always_on_process_windows_stored{" + idle_labels + "} 1\n",
        "protond_always_on_process_windows_skipped_total{" + trainer_labels + "} 2\n",
        "protond_always_on_last_window_gpu_busy_ratio{" + trainer_labels + "} 0.5\n",
        "protond_always_on_last_window_gpu_busy_ratio{" + cpu_labels + "} 0\n",
        "protond_always_on_last_window_top_kernel_share{" + trainer_labels +
            R"(,kernel="sm90_xmma_gemm"} 0.25)" + "\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nnot in\n" << text;
  }
  EXPECT_EQ(text.find("protond_always_on_last_window_gpu_busy_ratio{" + idle_labels),
            std::string::npos);
  EXPECT_EQ(text.find("protond_always_on_last_window_top_kernel_share{" + cpu_labels),
            std::string::npos);
}

// A job's label is the job's name as its processes' environment gave it: escaped as the format
// wants (backslash, double quote, line feed) and with invalid UTF-8 replaced.
TEST(RenderTextTest, AlwaysOnJobsVerdicts) {
  Snapshot snapshot;
  snapshot.always_on_jobs = {
      {"981", 1, 0.0102, 0.2}, {"balanced", -1, 0, 0.01}, {"a\"b\\c\nd\x80", 0, 0.5, 0.75}};
  const std::string text = RenderText(snapshot);
  const std::string hostile = R"(job="a\"b\\c\nd)"
                              "\xEF\xBF\xBD\"";
  for (const std::string& line : {
           std::string("protond_job_late_rank{job=\"981\"} 1\n"),
           std::string("protond_job_late_mean_seconds{job=\"981\"} 0.0102\n"),
           std::string("protond_job_wait_share{job=\"981\"} 0.2\n"),
           std::string("protond_job_late_rank{job=\"balanced\"} -1\n"),
           std::string("protond_job_late_mean_seconds{job=\"balanced\"} 0\n"),
           std::string("protond_job_wait_share{job=\"balanced\"} 0.01\n"),
           "protond_job_late_rank{" + hostile + "} 0\n",
           "protond_job_late_mean_seconds{" + hostile + "} 0.5\n",
           "protond_job_wait_share{" + hostile + "} 0.75\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nnot in\n" << text;
  }
  // Nothing else: a job is a series of each family, with no other label.
  size_t series = 0;
  for (size_t at = text.find("\nprotond_job_"); at != std::string::npos;
       at = text.find("\nprotond_job_", at + 1)) {
    ++series;
  }
  EXPECT_EQ(series, 9u);
}

}  // namespace
}  // namespace protond::metrics
