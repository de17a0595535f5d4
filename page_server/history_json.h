// The answer of /api/history (docs/web.md): the always-on windows `protonctl history` lists (one
// ListHistory call), as values, from the same OverviewOfWindow (view/history/window_summary.h)
// that makes its lines.
#ifndef PROTOND_PAGE_SERVER_HISTORY_JSON_H_
#define PROTOND_PAGE_SERVER_HISTORY_JSON_H_

#include <cstddef>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "protond.pb.h"
#include "view/history/window_query.h"

namespace protond::page_server {

// The query's pid, job, command, since and until as `protonctl history`'s options of the same
// names, read by the same view::SetWindowOption against `now`: the same values and the same
// errors (InvalidArgumentError with the CLI's message). Other parameters are not history's:
// ignored.
absl::StatusOr<view::WindowQuery> WindowQueryOf(
    const std::map<std::string, std::string>& parameters, absl::Time now);

// {"windows": [...], "total_windows": N} and, when no window is selected, "note": the line
// `protonctl history` prints instead of its table. Each window: "session" (its id), "kind"
// ("window", or a period's "hour" or "day"), "who", "pids", "job", "running",
// "start_time_unix_ns", "end_time_unix_ns" (64-bit, as strings), "length_ns" (a period's: the
// time its windows recorded), "records" (a string), "gpu_time_ns", "gpu_busy" (a fraction),
// "top_kernel" and "top_kernel_share" (null where `protonctl history` prints "-"), "summarized"
// (false for a running window, whose summary protond makes when it stops, and for one it could not
// summarize). Pure.
nlohmann::json HistoryJson(const google::protobuf::RepeatedPtrField<v1::Session>& windows,
                           size_t total_windows, absl::Time now);

// What /api/history answers when protond's ListHistory failed: protond's failure (502), whatever
// its code, since the page's parameters were checked before the call. The message stays.
absl::Status ListHistoryFailed(const absl::Status& status);

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_HISTORY_JSON_H_
