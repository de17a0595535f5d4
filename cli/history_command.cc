#include "cli/history_command.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "cli/arg_reader.h"
#include "common/status/status_macros.h"
#include "view/history/window_summary.h"
#include "view/history/window_verdict.h"
#include "view/render/session_table.h"
#include "view/render/text_table.h"
#include "view/tree/tree_merge.h"

namespace protond::cli {
namespace {

absl::Status Usage(const std::string& message) { return absl::InvalidArgumentError(message); }

constexpr std::array<view::TableColumn, 7> kColumns = {{
    {"START", false},
    {"LENGTH", true},
    {"WHO", false},
    {"GPU BUSY", true},
    {"RECORDS", true},
    {"LATE", false},
    {"TOP KERNEL", false},
}};

// TOP KERNEL where the daemon has no summary: not yet, or none it could make.
std::string NoSummaryText(const v1::Session& session) {
  return session.state() == v1::Session::RUNNING ? "(when it stops)" : "(no summary)";
}

std::vector<std::string> WindowRow(const v1::Session& session, absl::Time now) {
  const view::WindowOverview summary = view::OverviewOfWindow(session, now);
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
                                  view::LateRankText(session.window_summary()).value_or("-"),
                                  top};
}

}  // namespace

absl::StatusOr<bool> ParseWindowOption(ArgReader& reader, absl::Time now, HistoryArgs* parsed) {
  if (!view::IsWindowOption(reader.arg())) return false;
  const std::string option = reader.arg();
  ASSIGN_OR_RETURN(const std::string value, reader.Value());
  RETURN_IF_ERROR(view::SetWindowOption(option, value, now, parsed));
  return true;
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

std::string RenderHistory(const google::protobuf::RepeatedPtrField<v1::Session>& windows,
                          size_t total_windows, absl::Time now) {
  if (windows.empty()) return absl::StrCat(view::NoWindowLine(total_windows), "\n");
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
