// `protonctl history`: the always-on windows (docs/always-on.md) the caller may see, oldest first,
// one line each: when, how long, whose, how busy the GPU was and with which kernel. One
// ListHistory call: the daemon selects the windows and keeps each stopped one's summary.
#ifndef PROTOND_CLI_HISTORY_COMMAND_H_
#define PROTOND_CLI_HISTORY_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cli/arg_reader.h"
#include "client-lib/cpp/client.h"
#include "protond.pb.h"
#include "view/history/window_query.h"

namespace protond::cli {

// The options that select windows, as the page's /api/history reads them too.
using HistoryArgs = view::WindowQuery;
using view::CheckWindowSelection;
using view::HistoryRequestOf;

// `history [--pid P | --job J | --command REGEX] [--since T] [--until T]`. T is a duration back
// from `now` (common/text/duration.h: 90s, 30m, 2h) or an RFC 3339 time (2026-11-27T10:00:00Z).
// InvalidArgumentError names what was wrong: an unknown option, a bad value, --pid with --job,
// a regex RE2 refuses, --since not before --until.
absl::StatusOr<HistoryArgs> ParseHistoryArgs(const std::vector<std::string>& args, absl::Time now);

// If `reader`'s argument is one of the options that select windows (--pid, --job, --command,
// --since, --until), reads it (and its value) into `parsed` and returns true; else false. Also
// how `protonctl tree --since` selects its windows.
absl::StatusOr<bool> ParseWindowOption(ArgReader& reader, absl::Time now, HistoryArgs* parsed);

// A table of `windows` in their order: START (local time), LENGTH (so far, for one that still
// runs at `now`), WHO ("pid P: COMMAND" or "job J", from the window's name), GPU BUSY (GPU time,
// as `protonctl top` sums it, over the length and the GPUs the window used; "-" without GPU
// work), RECORDS and TOP KERNEL (the heaviest kernel's short name and its share of the GPU time;
// "(when it stops)" for a running window, which has no summary yet, "(no summary)" for a stopped
// one the daemon could not summarize). With no window, one line instead: none at all
// (`total_windows` 0, and how windows are made), or none of `total_windows` selected. Pure;
// names are printed as PrintableText.
std::string RenderHistory(const google::protobuf::RepeatedPtrField<v1::Session>& windows,
                          size_t total_windows, absl::Time now);

// Lists the selected windows (one ListHistory) and renders them.
absl::StatusOr<std::string> RunHistoryCommand(client::Client& client, const HistoryArgs& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_HISTORY_COMMAND_H_
