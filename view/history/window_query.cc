#include "view/history/window_query.h"

#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "common/text/duration.h"
#include "re2/re2.h"

namespace protond::view {
namespace {

absl::Status Usage(const std::string& message) { return absl::InvalidArgumentError(message); }

// --since/--until: a duration back from `now` (the parser of start --duration), else RFC 3339.
absl::StatusOr<absl::Time> ParseWhen(absl::string_view option, const std::string& text,
                                     absl::Time now) {
  const absl::StatusOr<uint64_t> ms = text::ParseDurationMs(text);
  if (ms.ok()) {
    // Past int64's milliseconds: before anything was recorded.
    if (*ms > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::InfinitePast();
    }
    return now - absl::Milliseconds(static_cast<int64_t>(*ms));
  }
  absl::Time time;
  std::string ignored;
  if (absl::ParseTime(absl::RFC3339_full, text, &time, &ignored)) return time;
  return Usage(absl::StrCat("bad ", option, " '", text, "': ", ms.status().message(),
                            ", nor an RFC 3339 time (2026-11-27T10:00:00Z)"));
}

}  // namespace

bool IsWindowOption(absl::string_view option) {
  return option == "--pid" || option == "--job" || option == "--command" || option == "--since" ||
         option == "--until";
}

absl::Status SetWindowOption(absl::string_view option, const std::string& value, absl::Time now,
                             WindowQuery* query) {
  if (option == "--pid") {
    if (!absl::SimpleAtoi(value, &query->pid) || query->pid == 0) {
      return Usage(absl::StrCat("--pid needs a process id (a positive number), not '", value, "'"));
    }
  } else if (option == "--job") {
    if (value.empty()) return Usage("--job needs a job id");
    query->job = value;
  } else if (option == "--command") {
    const re2::RE2 regex(value, re2::RE2::Quiet);
    if (!regex.ok()) {
      return Usage(absl::StrCat("bad --command regex '", value, "': ", regex.error()));
    }
    query->command = value;
  } else if (option == "--since" || option == "--until") {
    ASSIGN_OR_RETURN(const absl::Time when, ParseWhen(option, value, now));
    const bool since = option == "--since";
    (since ? query->since : query->until) = when;
    (since ? query->since_text : query->until_text) = value;
  } else {
    return Usage(absl::StrCat("unknown option '", option, "'"));
  }
  return absl::OkStatus();
}

absl::Status CheckWindowSelection(const WindowQuery& query) {
  if (query.pid != 0 && !query.job.empty()) {
    return Usage("--pid and --job cannot be used together");
  }
  if (query.since >= query.until) {
    return Usage(absl::StrCat("--since '", query.since_text, "' must be before --until '",
                              query.until_text, "': no window starts in between"));
  }
  return absl::OkStatus();
}

v1::ListHistoryRequest HistoryRequestOf(const WindowQuery& query) {
  v1::ListHistoryRequest request;
  request.set_pid(query.pid);
  request.set_job(query.job);
  request.set_command(query.command);
  if (query.since != absl::InfinitePast())
    request.set_since_unix_ns(absl::ToUnixNanos(query.since));
  if (query.until != absl::InfiniteFuture()) {
    request.set_until_unix_ns(absl::ToUnixNanos(query.until));
  }
  return request;
}

}  // namespace protond::view
