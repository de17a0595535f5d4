// One always-on window's verdict on its NCCL collective calls (docs/always-on.md, docs/jobs.md
// "Live"): the rank the others waited for, judged by the same code as `protonctl job` (plugin
// records, validation, matching, JudgeJob). protond computes it when a window stops, beside the
// window's summary; `protonctl history` and the metrics show it. Pure.
#ifndef PROTOND_VIEW_HISTORY_WINDOW_VERDICT_H_
#define PROTOND_VIEW_HISTORY_WINDOW_VERDICT_H_

#include <optional>
#include <string>

#include "protond.pb.h"

namespace protond::view {

// The verdict on `calls`, a window's collective calls as GetCollectives answers them, over a
// window of `length_ns`; nullopt when there is no call. The others' wait share is of their time
// in the window (its length times their number), 0 when the length is not positive.
std::optional<v1::WindowVerdict> JudgeWindow(const v1::Collectives& calls, double length_ns);

// The LATE column of `protonctl history` and the page's History: "rank 1 +10.2 ms" (its mean
// lateness); none when no rank is late or the window has no verdict.
std::optional<std::string> LateRankText(const v1::WindowSummary& summary);

}  // namespace protond::view

#endif  // PROTOND_VIEW_HISTORY_WINDOW_VERDICT_H_
