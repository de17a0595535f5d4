#include "page_server/window_range.h"

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "view/render/session_table.h"

namespace protond::page_server {
namespace {

// "of pid 7", "of job 981", "whose command matches 'train'", and the range, as given.
std::string SelectionText(const view::WindowQuery& query) {
  std::string text;
  if (query.pid != 0) absl::StrAppend(&text, " of pid ", query.pid);
  if (!query.job.empty()) absl::StrAppend(&text, " of job ", query.job);
  if (!query.command.empty()) {
    absl::StrAppend(&text, " whose command matches '", query.command, "'");
  }
  if (!query.since_text.empty()) absl::StrAppend(&text, " since ", query.since_text);
  if (!query.until_text.empty()) absl::StrAppend(&text, " until ", query.until_text);
  return text;
}

}  // namespace

absl::StatusOr<WindowRange> LoadWindowRange(ProfileSource& source, const view::WindowQuery& query) {
  ASSIGN_OR_RETURN(v1::RangeTree merged, source.GetRangeTree(view::HistoryRequestOf(query)));
  const google::protobuf::RepeatedPtrField<v1::Session>& selected = merged.windows();
  if (selected.empty()) {
    return absl::NotFoundError(absl::StrCat("no always-on window", SelectionText(query),
                                            " (protonctl history lists them)"));
  }
  WindowRange range;
  range.tree = std::move(*merged.mutable_tree());
  const v1::Session& last = *selected.rbegin();
  const std::string end =
      last.state() == v1::Session::RUNNING ? "now" : view::FormatLocalTime(last.end_time_unix_ns());
  range.heading = absl::StrCat(
      selected.size(), " always-on window", selected.size() == 1 ? "" : "s", SelectionText(query),
      ": ", view::FormatLocalTime(selected.begin()->start_time_unix_ns()), " to ", end, "\n");
  return range;
}

}  // namespace protond::page_server
