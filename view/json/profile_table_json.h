// A profile table (view/tree/profile_view.h) as the web page reads it: docs/web.md's "columns",
// "nodes" and "notes" of /api/tree and /api/diff. Pure functions; no I/O.
#ifndef PROTOND_VIEW_JSON_PROFILE_TABLE_JSON_H_
#define PROTOND_VIEW_JSON_PROFILE_TABLE_JSON_H_

#include <string>

#include "nlohmann/json.hpp"
#include "view/tree/profile_view.h"

namespace protond::view {

// {"columns": [header, ...], "nodes": [{"id", "parent", "name", "full_name", "values", "text"},
// ...], "notes": [...]}: a node per frame of `table` in its order (parents first), `id` its index
// and `parent` its parent's (null for ROOT); `values[c]` column c as a number (null where blank,
// and for a float JSON cannot hold: inf, nan; a vector metric's sum, by which the page sorts and
// draws it, as protonctl sorts) and `text[c]` the cell `protonctl tree` prints
// (MetricValue::Format: a vector's elements).
nlohmann::json ProfileTableJson(const ProfileTable& table);

// `json` as text, for an answer. Names are untrusted bytes: a byte that is not UTF-8 becomes
// U+FFFD instead of failing the whole answer; '<', '>' and '&' stay as they are (the page shows
// names as text, and the answer's type is application/json).
std::string DumpJson(const nlohmann::json& json);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JSON_PROFILE_TABLE_JSON_H_
