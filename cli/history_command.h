// `protonctl history`: the always-on windows (docs/always-on.md) the caller may see, oldest first,
// one line each: when, how long, whose, how busy the GPU was and with which kernel. The windows
// are the daemon's sessions with always_on_window set; nothing of the daemon's is read but
// ListSessions and GetTree.
#ifndef PROTOND_CLI_HISTORY_COMMAND_H_
#define PROTOND_CLI_HISTORY_COMMAND_H_

#include <cstdint>
#include <optional>
#include <span>
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
  std::string job;      // --job: the windows of this job (cli/fan_out's IsSessionOfJob)
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

// Of `sessions`, the windows that `args` selects, oldest first (by start, then id). Pure.
std::vector<const v1::Session*> SelectWindows(
    const google::protobuf::RepeatedPtrField<v1::Session>& sessions, const HistoryArgs& args);

// A window and its tree, as the daemon gave them.
struct HistoryWindow {
  const v1::Session* session;
  const v1::Tree* tree;
};

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

// InvalidArgumentError, naming the window, when its tree's kernels cannot be read. Pure.
absl::StatusOr<WindowSummary> SummarizeWindow(const HistoryWindow& window, absl::Time now);

// A table of `windows` in their order: START (local time), LENGTH (so far, for one that still
// runs at `now`), WHO ("pid P: COMMAND" or "job J", from the window's name), GPU BUSY (GPU time,
// as `protonctl top` sums it, over the length and the GPUs the window used; "-" without GPU
// work), RECORDS and TOP KERNEL (the heaviest kernel's short name and its share of the GPU time).
// With no window, one line instead: none at all (`total_windows` 0, and how windows are made), or
// none of `total_windows` selected. Pure; names are printed as PrintableText.
absl::StatusOr<std::string> RenderHistory(std::span<const HistoryWindow> windows,
                                          size_t total_windows, absl::Time now);

// The windows `args` selects, oldest first, their trees merged into one (view/tree/tree_merge.h),
// with a line that says which windows they were. NotFoundError, naming the range, when none is
// selected.
struct WindowRange {
  std::string heading;  // "12 always-on windows of pid 7, 2026-11-27 10:00:00 to 10:11:02"
  v1::Tree tree;
};
absl::StatusOr<WindowRange> LoadWindowRange(client::Client& client, const HistoryArgs& args);

// The windows `args` selects, oldest first, with their trees: one ListSessions, then a GetTree
// per window.
struct LoadedWindows {
  size_t total_windows = 0;           // the always-on windows the caller may see, all of them
  std::vector<v1::Session> sessions;  // the selected ones
  std::vector<v1::Tree> trees;        // trees[i] is sessions[i]'s
  // Points into this; valid while it lives unchanged.
  std::vector<HistoryWindow> Windows() const;
};
absl::StatusOr<LoadedWindows> LoadWindows(client::Client& client, const HistoryArgs& args);

// Loads the selected windows (LoadWindows) and renders them.
absl::StatusOr<std::string> RunHistoryCommand(client::Client& client, const HistoryArgs& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_HISTORY_COMMAND_H_
