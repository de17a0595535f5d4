#include "page_server/window_range.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "view/render/session_table.h"
#include "view/tree/tree_merge.h"

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
  ASSIGN_OR_RETURN(const v1::ListHistoryResponse listed,
                   source.ListHistory(view::HistoryRequestOf(query)));
  const google::protobuf::RepeatedPtrField<v1::Session>& selected = listed.windows();
  if (selected.empty()) {
    return absl::NotFoundError(absl::StrCat("no always-on window", SelectionText(query),
                                            " (protonctl history lists them)"));
  }
  std::vector<v1::Tree> trees;
  trees.reserve(selected.size());
  for (const v1::Session& session : selected) {
    ASSIGN_OR_RETURN(v1::Tree tree, source.GetTree(session.id(), "", /*instructions=*/false));
    trees.push_back(std::move(tree));
  }
  WindowRange range;
  ASSIGN_OR_RETURN(range.tree, view::MergeTrees(trees));
  const v1::Session& last = *selected.rbegin();
  const std::string end =
      last.state() == v1::Session::RUNNING ? "now" : view::FormatLocalTime(last.end_time_unix_ns());
  range.heading = absl::StrCat(
      selected.size(), " always-on window", selected.size() == 1 ? "" : "s", SelectionText(query),
      ": ", view::FormatLocalTime(selected.begin()->start_time_unix_ns()), " to ", end, "\n");
  return range;
}

}  // namespace protond::page_server
