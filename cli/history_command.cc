#include "cli/history_command.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "cli/arg_reader.h"
#include "common/status/status_macros.h"
#include "common/text/duration.h"
#include "re2/re2.h"
#include "view/history/window_summary.h"
#include "view/render/session_table.h"
#include "view/render/text_table.h"
#include "view/tree/frame_names.h"
#include "view/tree/tree_merge.h"

namespace protond::cli {
namespace {

absl::Status Usage(const std::string& message) { return absl::InvalidArgumentError(message); }

// --since/--until: a duration back from `now` (the parser of start --duration), else RFC 3339.
absl::StatusOr<absl::Time> ParseWhen(const std::string& flag, const std::string& text,
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
  return Usage(absl::StrCat("bad ", flag, " '", text, "': ", ms.status().message(),
                            ", nor an RFC 3339 time (2026-11-27T10:00:00Z)"));
}

constexpr std::array<view::TableColumn, 6> kColumns = {{
    {"START", false},
    {"LENGTH", true},
    {"WHO", false},
    {"GPU BUSY", true},
    {"RECORDS", true},
    {"TOP KERNEL", false},
}};

// How long it recorded: to its end, or to `now` while it runs.
absl::Duration LengthOf(const v1::Session& session, absl::Time now) {
  const absl::Time start = absl::FromUnixNanos(session.start_time_unix_ns());
  const absl::Time end = session.state() == v1::Session::RUNNING
                             ? now
                             : absl::FromUnixNanos(session.end_time_unix_ns());
  return std::max(end - start, absl::ZeroDuration());
}

// "pid P: COMMAND" or "job J", as the window's name ("window pid P", "window job J") says.
std::string Who(const v1::Session& session) {
  absl::string_view who = session.name();
  absl::ConsumePrefix(&who, "window ");
  if (who.empty()) return "-";
  if (absl::StartsWith(who, "pid ") && session.processes_size() > 0 &&
      !session.processes(0).command().empty()) {
    return absl::StrCat(who, ": ", session.processes(0).command());
  }
  return std::string(who);
}

// TOP KERNEL where the daemon has no summary: not yet, or none it could make.
std::string NoSummaryText(const v1::Session& session) {
  return session.state() == v1::Session::RUNNING ? "(when it stops)" : "(no summary)";
}

std::vector<std::string> WindowRow(const v1::Session& session, absl::Time now) {
  const WindowSummary summary = SummarizeWindow(session, now);
  std::string busy = "-";
  if (summary.gpu_busy.has_value()) busy = absl::StrFormat("%.1f%%", 100 * *summary.gpu_busy);
  std::string top =
      session.has_window_summary() ? summary.top_kernel.value_or("-") : NoSummaryText(session);
  if (summary.top_kernel_share.has_value()) {
    absl::StrAppendFormat(&top, " (%.1f%%)", 100 * *summary.top_kernel_share);
  }
  std::string length_text =
      absl::FormatDuration(absl::Trunc(summary.length, absl::Milliseconds(1)));
  if (session.state() == v1::Session::RUNNING) absl::StrAppend(&length_text, " so far");
  return std::vector<std::string>{view::FormatLocalTime(session.start_time_unix_ns()),
                                  length_text,
                                  summary.who,
                                  busy,
                                  absl::StrCat(session.records()),
                                  top};
}

}  // namespace

absl::StatusOr<bool> ParseWindowOption(ArgReader& reader, absl::Time now, HistoryArgs* parsed) {
  if (reader.Is("--pid")) {
    ASSIGN_OR_RETURN(const std::string pid, reader.Value());
    if (!absl::SimpleAtoi(pid, &parsed->pid) || parsed->pid == 0) {
      return Usage(absl::StrCat("--pid needs a process id (a positive number), not '", pid, "'"));
    }
  } else if (reader.Is("--job")) {
    ASSIGN_OR_RETURN(parsed->job, reader.Value());
    if (parsed->job.empty()) return Usage("--job needs a job id");
  } else if (reader.Is("--command")) {
    ASSIGN_OR_RETURN(parsed->command, reader.Value());
    const re2::RE2 regex(parsed->command, re2::RE2::Quiet);
    if (!regex.ok()) {
      return Usage(absl::StrCat("bad --command regex '", parsed->command, "': ", regex.error()));
    }
  } else if (reader.Is("--since", "--until")) {
    const std::string flag = reader.arg();
    ASSIGN_OR_RETURN(const std::string text, reader.Value());
    ASSIGN_OR_RETURN(const absl::Time when, ParseWhen(flag, text, now));
    const bool since = flag == "--since";
    (since ? parsed->since : parsed->until) = when;
    (since ? parsed->since_text : parsed->until_text) = text;
  } else {
    return false;
  }
  return true;
}

absl::Status CheckWindowSelection(const HistoryArgs& parsed) {
  if (parsed.pid != 0 && !parsed.job.empty()) {
    return Usage("--pid and --job cannot be used together");
  }
  if (parsed.since >= parsed.until) {
    return Usage(absl::StrCat("--since '", parsed.since_text, "' must be before --until '",
                              parsed.until_text, "': no window starts in between"));
  }
  return absl::OkStatus();
}

absl::StatusOr<HistoryArgs> ParseHistoryArgs(const std::vector<std::string>& args, absl::Time now) {
  HistoryArgs parsed;
  ArgReader reader(args);
  while (reader.Next()) {
    ASSIGN_OR_RETURN(const bool known, ParseWindowOption(reader, now, &parsed));
    if (known) continue;
    std::string unexpected;
    RETURN_IF_ERROR(reader.Profile(&unexpected));
    return Usage(absl::StrCat("unexpected argument '", unexpected, "'"));
  }
  RETURN_IF_ERROR(CheckWindowSelection(parsed));
  return parsed;
}

v1::ListHistoryRequest HistoryRequestOf(const HistoryArgs& args) {
  v1::ListHistoryRequest request;
  request.set_pid(args.pid);
  request.set_job(args.job);
  request.set_command(args.command);
  if (args.since != absl::InfinitePast()) request.set_since_unix_ns(absl::ToUnixNanos(args.since));
  if (args.until != absl::InfiniteFuture()) {
    request.set_until_unix_ns(absl::ToUnixNanos(args.until));
  }
  return request;
}

WindowSummary SummarizeWindow(const v1::Session& window, absl::Time now) {
  WindowSummary summary;
  summary.who = Who(window);
  summary.length = LengthOf(window, now);
  if (!window.has_window_summary()) return summary;
  const v1::WindowSummary& kept = window.window_summary();
  summary.gpu_time_ns = kept.gpu_time_ns();
  if (kept.top_kernel().empty()) return summary;  // no GPU work
  const view::WindowShares shares =
      view::SharesOfWindow(kept, absl::ToDoubleNanoseconds(summary.length));
  summary.gpu_busy = shares.gpu_busy;
  summary.top_kernel = view::KernelName(kept.top_kernel(), view::KernelNames::kShort);
  summary.top_kernel_share = shares.top_kernel_share;
  return summary;
}

std::string RenderHistory(const google::protobuf::RepeatedPtrField<v1::Session>& windows,
                          size_t total_windows, absl::Time now) {
  if (total_windows == 0) {
    return std::string(
        "no always-on windows: protond records them when started with --always-on "
        "(docs/always-on.md)\n");
  }
  if (windows.empty()) {
    return total_windows == 1
               ? std::string("the one always-on window does not match\n")
               : absl::StrCat("none of the ", total_windows, " always-on windows matches\n");
  }
  std::vector<std::vector<std::string>> rows;
  for (const v1::Session& window : windows) rows.push_back(WindowRow(window, now));
  return view::RenderTextTable(kColumns, rows);
}

namespace {

// "of pid 7", "of job 981", "matching 'train'", or "" for all windows, and the range.
std::string SelectionText(const HistoryArgs& args) {
  std::string text;
  if (args.pid != 0) absl::StrAppend(&text, " of pid ", args.pid);
  if (!args.job.empty()) absl::StrAppend(&text, " of job ", args.job);
  if (!args.command.empty()) absl::StrAppend(&text, " whose command matches '", args.command, "'");
  if (!args.since_text.empty()) absl::StrAppend(&text, " since ", args.since_text);
  if (!args.until_text.empty()) absl::StrAppend(&text, " until ", args.until_text);
  return text;
}

}  // namespace

absl::StatusOr<WindowRange> LoadWindowRange(client::Client& client, const HistoryArgs& args) {
  ASSIGN_OR_RETURN(const v1::ListHistoryResponse listed,
                   client.ListHistory(HistoryRequestOf(args)));
  const google::protobuf::RepeatedPtrField<v1::Session>& selected = listed.windows();
  if (selected.empty()) {
    return absl::NotFoundError(absl::StrCat("no always-on window", SelectionText(args),
                                            " (protonctl history lists them)"));
  }
  std::vector<v1::Tree> trees;
  trees.reserve(selected.size());
  for (const v1::Session& session : selected) {
    ASSIGN_OR_RETURN(v1::Tree tree, client.GetTree(session.id()));
    trees.push_back(std::move(tree));
  }
  WindowRange range;
  ASSIGN_OR_RETURN(range.tree, view::MergeTrees(trees));
  const v1::Session& last = *selected.rbegin();
  const std::string end =
      last.state() == v1::Session::RUNNING ? "now" : view::FormatLocalTime(last.end_time_unix_ns());
  range.heading = absl::StrCat(
      selected.size(), " always-on window", selected.size() == 1 ? "" : "s", SelectionText(args),
      ": ", view::FormatLocalTime(selected.begin()->start_time_unix_ns()), " to ", end, "\n");
  return range;
}

absl::StatusOr<std::string> RunHistoryCommand(client::Client& client, const HistoryArgs& args) {
  ASSIGN_OR_RETURN(const v1::ListHistoryResponse listed,
                   client.ListHistory(HistoryRequestOf(args)));
  return RenderHistory(listed.windows(), listed.total_windows(), absl::Now());
}

}  // namespace protond::cli
