// A range of always-on windows as one tree: the windows a WindowQuery selects, oldest first,
// their trees merged (view/tree/tree_merge.h), with a line that says which windows they were.
// One GetRangeTree (protond merges the windows), through a ProfileSource: `protonctl tree --since`
// (its client) and the page's /api/range-diff (protonctl ui's or protond's) read ranges alike.
#ifndef PROTOND_PAGE_SERVER_WINDOW_RANGE_H_
#define PROTOND_PAGE_SERVER_WINDOW_RANGE_H_

#include <string>

#include "absl/status/statusor.h"
#include "page_server/profile_source.h"
#include "protond.pb.h"
#include "view/history/window_query.h"

namespace protond::page_server {

struct WindowRange {
  std::string heading;  // "12 always-on windows of pid 7: 2026-11-27 10:00:00 to 10:11:02"
  v1::Tree tree;
};

// NotFoundError, naming the range, when `query` selects no window; the source's error when a
// call fails.
absl::StatusOr<WindowRange> LoadWindowRange(ProfileSource& source, const view::WindowQuery& query);

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_WINDOW_RANGE_H_
