// Always-on periods (protond --keep-windows, --keep-hourly; docs/always-on.md "Retention"): once
// a UTC clock hour is older than keep-windows, the windows of one process (or of one job) in it
// are merged into one "hour" session that replaces them; once a UTC day is older than
// keep-hourly, its hours into one "day". A period keeps the merged tree, its processes with
// their record counters summed, the windows' problems, and a summary made again from the merged
// tree; start and end are the hour or day. The merge and the deletion of what it merged are one
// store transaction (Store::ReplaceWithPeriod).
//
// Not thread-safe: called by HistoryRetention::Step on the ingest thread.
#ifndef PROTOND_DAEMON_ALWAYS_ON_HISTORY_PERIODS_H_
#define PROTOND_DAEMON_ALWAYS_ON_HISTORY_PERIODS_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/aggregate/call_tree.h"
#include "daemon/always_on/period_verdict.h"
#include "daemon/always_on/stopped_window.h"
#include "daemon/store/store.h"

namespace protond::always_on {

// The sessions of one process or job in one hour (or day) that become one period: windows and
// any hour already made for it (a window stored late), or hours and any day already made.
struct PeriodGroup {
  store::HistoryPeriod period = store::HistoryPeriod::kHour;
  int64_t start_unix_ns = 0;  // the UTC hour or day
  int64_t end_unix_ns = 0;
  std::vector<StoppedWindow> members;  // oldest first
};

// The oldest group due at `now_unix_ns`: windows whose hour ended keep_windows ago or more, then
// hours whose day ended keep_hourly ago or more. None when nothing is due. A group is due only
// when it holds something to merge (a window for an hour, an hour for a day).
std::optional<PeriodGroup> NextDuePeriod(const std::vector<StoppedWindow>& history,
                                         std::chrono::nanoseconds keep_windows,
                                         std::chrono::nanoseconds keep_hourly, int64_t now_unix_ns);

// One period being made: its members' trees added one at a time (each a read of the store,
// short, so that a Step keeps to its deadline however many windows an hour holds), then written
// with its members deleted in one transaction (Store::ReplaceWithPeriod). Nothing is written
// before Finish: a merge given up, or a daemon that stops, leaves the store as it was.
class PeriodMerge {
 public:
  PeriodMerge(PeriodGroup group, uint64_t period_id);

  // Adds the next member's tree, counters, problems and summary; true once all are in.
  absl::StatusOr<bool> AddNextMember(store::Store& store);
  // Writes the period and deletes its members; returns the period's row as stored. A metric that
  // could not be merged (another type in one window) is left out and named in its problems. An
  // error of the store (a member deleted meanwhile, say) leaves the store as it was.
  absl::StatusOr<store::SessionRow> Finish(store::Store& store);

  const PeriodGroup& group() const { return group_; }

 private:
  // The period's summary from its merged tree, as a window's is made (view::SummarizeWindowTree);
  // a tree it cannot read keeps the members' GPU time summed, with no top kernel, and says why.
  store::WindowSummaryRow SummarizePeriod(const store::Batch& merged,
                                          std::vector<std::string>& problems) const;

  PeriodGroup group_;
  uint64_t period_id_;
  size_t next_member_ = 0;
  aggregate::CallTree tree_;
  absl::Status merged_metrics_;
  std::map<uint64_t, store::SessionProcessRow> processes_;  // by process id, counters summed
  std::vector<store::SessionDevice> devices_;
  std::vector<std::string> problems_;
  int64_t recorded_ns_ = 0;
  uint32_t gpus_used_ = 1;
  double gpu_time_ns_ = 0;
  PeriodVerdict verdict_;
};

// The period's name from a member's: "window pid 42" -> "hour pid 42", "hour job J" -> "day job J".
std::string PeriodName(const std::string& member_name, store::HistoryPeriod period);

}  // namespace protond::always_on

#endif  // PROTOND_DAEMON_ALWAYS_ON_HISTORY_PERIODS_H_
