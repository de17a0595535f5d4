#include "daemon/metrics/metrics.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/text/utf8.h"

namespace protond::metrics {
namespace {

constexpr char kReplacementCharacter[] = "\xEF\xBF\xBD";  // U+FFFD

// A sample value: integers exactly, other values with enough digits to read back the same double.
std::string Value(double value) { return absl::StrFormat("%.17g", value); }

void AddFamily(std::string& out, const char* name, const char* type, const char* help) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

void AddSessionFamily(std::string& out, const Snapshot& snapshot, const char* name,
                      const char* help, uint64_t SessionCounters::*counter) {
  AddFamily(out, name, "counter", help);
  for (const SessionCounters& session : snapshot.sessions) {
    absl::StrAppend(&out, name, "{session=\"", session.session_id, "\",name=\"",
                    EscapeLabelValue(session.name_untrusted), "\"} ", session.*counter, "\n");
  }
}

void AddHistogram(std::string& out, const char* name, const char* help,
                  const LatencyHistogram& histogram) {
  AddFamily(out, name, "histogram", help);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < histogram.bucket_counts().size(); ++i) {
    cumulative += histogram.bucket_counts()[i];
    const std::string bound = i < LatencyHistogram::kBoundsSeconds.size()
                                  ? absl::StrFormat("%g", LatencyHistogram::kBoundsSeconds[i])
                                  : "+Inf";
    absl::StrAppend(&out, name, "_bucket{le=\"", bound, "\"} ", cumulative, "\n");
  }
  absl::StrAppend(&out, name, "_sum ", Value(histogram.sum_seconds()), "\n", name, "_count ",
                  histogram.count(), "\n");
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

std::string EscapeLabelValue(const std::string& value_untrusted) {
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
    if (rest[0] == '\\' || rest[0] == '"') {
      out += '\\';
      out += rest[0];
    } else if (rest[0] == '\n') {
      out += "\\n";
    } else {
      out.append(rest.data(), length);
    }
    rest.remove_prefix(length);
  }
  return out;
}

std::string RenderText(const Snapshot& snapshot) {
  std::string out;
  AddFamily(out, "protond_processes_connected", "gauge",
            "Registered processes whose control connection to protond is open.");
  absl::StrAppend(&out, "protond_processes_connected ", snapshot.processes_connected, "\n");
  AddFamily(out, "protond_sessions_running", "gauge", "Sessions that are recording.");
  absl::StrAppend(&out, "protond_sessions_running ", snapshot.sessions_running, "\n");
  AddSessionFamily(out, snapshot, "protond_session_records_total",
                   "Records ingested into the session, over all its processes.",
                   &SessionCounters::records);
  AddSessionFamily(
      out, snapshot, "protond_session_dropped_records_total",
      "Records the session's processes could not write: their ring was full, or no lane was free.",
      &SessionCounters::dropped_records);
  AddFamily(out, "protond_store_size_bytes", "gauge",
            "Size of the store: the SQLite database and its write-ahead log.");
  absl::StrAppend(&out, "protond_store_size_bytes ", snapshot.store_bytes, "\n");
  AddFamily(out, "protond_commit_failures_total", "counter",
            "Commits of the ingest cycle that failed (they are tried again).");
  absl::StrAppend(&out, "protond_commit_failures_total ", snapshot.commit_failures, "\n");
  AddHistogram(out, "protond_commit_duration_seconds",
               "Time of each successful commit of the ingest cycle to the store.",
               snapshot.commit_duration);
  return out;
}

}  // namespace protond::metrics
