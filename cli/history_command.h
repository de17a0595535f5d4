// `protonctl history`: the always-on windows (docs/always-on.md) the caller may see, oldest first,
// one line each: when, how long, whose, how busy the GPU was and with which kernel. One
// ListHistory call: the daemon selects the windows and keeps each stopped one's summary.
#ifndef PROTOND_CLI_HISTORY_COMMAND_H_
#define PROTOND_CLI_HISTORY_COMMAND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cli/arg_reader.h"
#include "client-lib/cpp/client.h"
#include "protond.pb.h"

namespace protond::cli {

struct HistoryArgs {
  uint32_t pid = 0;     // --pid: the windows that recorded this process; 0 for any
  std::string job;      // --job: the windows of this job (view/history's IsSessionOfJob)
  std::string command;  // --command: RE2, found anywhere in a window's process's command line
  // --since and --until, resolved against the time of parsing: a window is listed when it
  // started in [since, until).
  absl::Time since = absl::InfinitePast();
  absl::Time until = absl::InfiniteFuture();
  std::string since_text;  // as given, for messages
  std::string until_text;
};

// `history [--pid P | --job J | --command REGEX] [--since T] [--until T]`. T is a duration back
// from `now` (common/text/duration.h: 90s, 30m, 2h) or an RFC 3339 time (2026-11-27T10:00:00Z).
// InvalidArgumentError names what was wrong: an unknown option, a bad value, --pid with --job,
// a regex RE2 refuses, --since not before --until.
absl::StatusOr<HistoryArgs> ParseHistoryArgs(const std::vector<std::string>& args, absl::Time now);

// If `reader`'s argument is one of the options that select windows (--pid, --job, --command,
// --since, --until), reads it (and its value) into `parsed` and returns true; else false. Also
// how `protonctl tree --since` selects its windows.
absl::StatusOr<bool> ParseWindowOption(ArgReader& reader, absl::Time now, HistoryArgs* parsed);

// What no single option can say is wrong: --pid with --job, --since not before --until.
absl::Status CheckWindowSelection(const HistoryArgs& parsed);

// The daemon's selection of the windows `args` selects (ListHistory).
v1::ListHistoryRequest HistoryRequestOf(const HistoryArgs& args);

// What `protonctl history` says of one window, as values: its line of RenderHistory, and the
// page's /api/history (cli/ui/history_json.h).
struct WindowSummary {
  std::string who;         // "pid P: COMMAND" or "job J", from the window's name; "-" if neither
  absl::Duration length;   // to its end, or to `now` while it runs
  double gpu_time_ns = 0;  // its kernels' GPU time, as `protonctl top` sums it
  // GPU time over the length and the GPUs the window used; none without GPU work or length.
  std::optional<double> gpu_busy;
  std::optional<std::string> top_kernel;   // the heaviest kernel's short name; none without one
  std::optional<double> top_kernel_share;  // of gpu_time_ns; none when that is 0
};

// From the window's session and the summary the daemon kept (window_summary): the GPU values
// stay unset for a window without one (running, or one whose tree could not be read). Pure.
WindowSummary SummarizeWindow(const v1::Session& window, absl::Time now);

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

// The windows `args` selects, oldest first, their trees merged into one (view/tree/tree_merge.h),
// with a line that says which windows they were: one ListHistory, then a GetTree per window.
// NotFoundError, naming the range, when none is selected.
struct WindowRange {
  std::string heading;  // "12 always-on windows of pid 7, 2026-11-27 10:00:00 to 10:11:02"
  v1::Tree tree;
};
absl::StatusOr<WindowRange> LoadWindowRange(client::Client& client, const HistoryArgs& args);

// Lists the selected windows (one ListHistory) and renders them.
absl::StatusOr<std::string> RunHistoryCommand(client::Client& client, const HistoryArgs& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_HISTORY_COMMAND_H_
