// Which always-on windows a person asks for (docs/always-on.md): `protonctl history`'s and `tree
// --since`'s options and the web page's /api/history parameters, read by one parser so that each
// refuses the same value with the same message, and turned into protond's ListHistory request.
#ifndef PROTOND_VIEW_HISTORY_WINDOW_QUERY_H_
#define PROTOND_VIEW_HISTORY_WINDOW_QUERY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "protond.pb.h"

namespace protond::view {

struct WindowQuery {
  uint32_t pid = 0;     // --pid: the windows that recorded this process; 0 for any
  std::string job;      // --job: the windows of this job (window_selection.h's IsSessionOfJob)
  std::string command;  // --command: RE2, found anywhere in a window's process's command line
  // --since and --until, resolved against the time of parsing: a window is listed when it
  // started in [since, until).
  absl::Time since = absl::InfinitePast();
  absl::Time until = absl::InfiniteFuture();
  std::string since_text;  // as given, for messages
  std::string until_text;
};

// Whether `option` is one of those that select windows: --pid, --job, --command, --since,
// --until.
bool IsWindowOption(absl::string_view option);

// Reads `value` of window option `option` into `query`. --since and --until take a duration back
// from `now` (common/text/duration.h: 90s, 30m, 2h) or an RFC 3339 time (2026-11-27T10:00:00Z).
// InvalidArgumentError names the option and the value: a pid that is not a positive number, an
// empty job, a regex RE2 refuses, a time that is neither.
absl::Status SetWindowOption(absl::string_view option, const std::string& value, absl::Time now,
                             WindowQuery* query);

// What no single option can say is wrong: --pid with --job, --since not before --until.
absl::Status CheckWindowSelection(const WindowQuery& query);

// protond's ListHistory request for the windows `query` selects.
v1::ListHistoryRequest HistoryRequestOf(const WindowQuery& query);

}  // namespace protond::view

#endif  // PROTOND_VIEW_HISTORY_WINDOW_QUERY_H_
