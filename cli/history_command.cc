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

// Second, and only when a period is listed: "window", or a period's "hour" or "day".
constexpr view::TableColumn kKindColumn = {"KIND", false};

// TOP KERNEL where the daemon has no summary: not yet, or none it could make.
std::string NoSummaryText(const v1::Session& session) {
  return session.state() == v1::Session::RUNNING ? "(when it stops)" : "(no summary)";
}

std::vector<std::string> WindowRow(const v1::Session& session, absl::Time now, bool with_kind) {
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
  std::vector<std::string> row = {view::FormatLocalTime(session.start_time_unix_ns()),
                                  length_text,
                                  summary.who,
                                  busy,
                                  absl::StrCat(session.records()),
                                  view::LateRankText(session.window_summary()).value_or("-"),
                                  top};
  if (with_kind) row.insert(row.begin() + 1, summary.kind);
  return row;
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
  const bool with_kind = std::any_of(windows.begin(), windows.end(), [](const v1::Session& s) {
    return s.period() != v1::Session::WINDOW;
  });
  std::vector<view::TableColumn> columns(kColumns.begin(), kColumns.end());
  if (with_kind) columns.insert(columns.begin() + 1, kKindColumn);
  std::vector<std::vector<std::string>> rows;
  for (const v1::Session& window : windows) rows.push_back(WindowRow(window, now, with_kind));
  return view::RenderTextTable(columns, rows);
}

namespace {}  // namespace

absl::StatusOr<std::string> RunHistoryCommand(client::Client& client, const HistoryArgs& args) {
  ASSIGN_OR_RETURN(const v1::ListHistoryResponse listed,
                   client.ListHistory(HistoryRequestOf(args)));
  return RenderHistory(listed.windows(), listed.total_windows(), absl::Now());
}

}  // namespace protond::cli
