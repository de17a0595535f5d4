#include "daemon/always_on/history_periods.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status/status_macros.h"
#include "daemon/query/tree_query.h"
#include "view/history/window_summary.h"

namespace protond::always_on {
namespace {

using store::HistoryPeriod;

constexpr int64_t kHourNs = int64_t{3600} * 1'000'000'000;
constexpr int64_t kDayNs = 24 * kHourNs;

// Whose history a session is: a job's (of one user) or one process's.
using Owner = std::tuple<uint32_t, std::string, uint64_t>;
Owner OwnerOf(const StoppedWindow& member) {
  const uint64_t process_id =
      member.job.empty() && !member.process_ids.empty() ? member.process_ids.front() : 0;
  return {member.uid, member.job, process_id};
}

int64_t BucketStart(int64_t time_unix_ns, int64_t bucket_ns) {
  const int64_t floor = time_unix_ns / bucket_ns * bucket_ns;
  return floor > time_unix_ns ? floor - bucket_ns : floor;  // before 1970: down, not up
}

// The oldest group of `target` due at `due_before` (a bucket that ended at or before it), made of
// the members of period `source` (what it merges) and of `target` (made before).
std::optional<PeriodGroup> OldestDue(const std::vector<StoppedWindow>& history,
                                     HistoryPeriod source, HistoryPeriod target, int64_t bucket_ns,
                                     int64_t due_before) {
  std::map<std::pair<int64_t, Owner>, PeriodGroup> groups;  // by bucket, then owner
  for (const StoppedWindow& member : history) {
    if (member.period != source && member.period != target) continue;
    const int64_t start = BucketStart(member.start_time_unix_ns, bucket_ns);
    if (start + bucket_ns > due_before) continue;
    PeriodGroup& group = groups[{start, OwnerOf(member)}];
    group.period = target;
    group.start_unix_ns = start;
    group.end_unix_ns = start + bucket_ns;
    group.members.push_back(member);
  }
  for (auto& [key, group] : groups) {
    const bool merges_something =
        std::any_of(group.members.begin(), group.members.end(),
                    [source](const StoppedWindow& m) { return m.period == source; });
    if (!merges_something) continue;
    std::sort(group.members.begin(), group.members.end(),
              [](const StoppedWindow& a, const StoppedWindow& b) {
                return std::pair(a.start_time_unix_ns, a.session_id) <
                       std::pair(b.start_time_unix_ns, b.session_id);
              });
    return std::move(group);
  }
  return std::nullopt;
}

void AddOnce(std::vector<std::string>& lines, const std::string& line) {
  if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
}

// The members share their processes: each device once.
void AddDevice(std::vector<store::SessionDevice>& devices, const store::SessionDevice& device) {
  const bool known = std::any_of(devices.begin(), devices.end(), [&](const auto& d) {
    return d.pid == device.pid && d.device == device.device;
  });
  if (!known) devices.push_back(device);
}

}  // namespace

std::optional<PeriodGroup> NextDuePeriod(const std::vector<StoppedWindow>& history,
                                         std::chrono::nanoseconds keep_windows,
                                         std::chrono::nanoseconds keep_hourly,
                                         int64_t now_unix_ns) {
  // Hours first: a day merges hours, which its windows must become first.
  std::optional<PeriodGroup> hour = OldestDue(history, HistoryPeriod::kWindow, HistoryPeriod::kHour,
                                              kHourNs, now_unix_ns - keep_windows.count());
  if (hour.has_value()) return hour;
  return OldestDue(history, HistoryPeriod::kHour, HistoryPeriod::kDay, kDayNs,
                   now_unix_ns - keep_hourly.count());
}

std::string PeriodName(const std::string& member_name, HistoryPeriod period) {
  absl::string_view who = member_name;
  for (absl::string_view kind : {"window ", "hour ", "day "}) {
    if (absl::ConsumePrefix(&who, kind)) break;
  }
  return absl::StrCat(period == HistoryPeriod::kDay ? "day " : "hour ", who);
}

PeriodMerge::PeriodMerge(PeriodGroup group, uint64_t period_id)
    : group_(std::move(group)), period_id_(period_id), tree_(period_id) {}

absl::StatusOr<bool> PeriodMerge::AddNextMember(store::Store& store) {
  if (next_member_ == group_.members.size()) return true;
  const uint64_t session_id = group_.members[next_member_].session_id;
  ASSIGN_OR_RETURN(const std::optional<store::SessionRow> row, store.GetSession(session_id));
  if (!row.has_value()) {
    return absl::NotFoundError(absl::StrCat("session ", session_id, " does not exist"));
  }
  ASSIGN_OR_RETURN(const store::StoredTree stored, store.LoadTree(session_id));
  merged_metrics_.Update(tree_.Add(stored));
  for (const store::SessionDevice& device : stored.devices) AddDevice(devices_, device);
  ASSIGN_OR_RETURN(const std::vector<store::SessionProcessRow> processes,
                   store.ListSessionProcesses(session_id));
  for (const store::SessionProcessRow& process : processes) {
    store::SessionProcessRow& sum = processes_[process.process_id];
    sum = {period_id_, process.process_id, sum.records + process.records,
           sum.dropped_records + process.dropped_records};
  }
  for (const std::string& problem : row->problems) AddOnce(problems_, problem);
  // A member's summary: its GPU time is added, its verdict summed up (period_verdict.h).
  const std::optional<store::WindowSummaryRow>& summary = row->window_summary;
  const int64_t recorded_ns = summary.has_value() && summary->recorded_ns > 0
                                  ? summary->recorded_ns
                                  : row->end_time_unix_ns - row->start_time_unix_ns;
  recorded_ns_ += recorded_ns;
  if (summary.has_value()) {
    gpus_used_ = std::max(gpus_used_, summary->gpus_used);
    gpu_time_ns_ += summary->gpu_time_ns;
    verdict_.Add(summary->verdict, recorded_ns);
  }
  return ++next_member_ == group_.members.size();
}

absl::StatusOr<store::SessionRow> PeriodMerge::Finish(store::Store& store) {
  std::vector<std::string> problems = problems_;
  if (!merged_metrics_.ok()) {
    problems.push_back(absl::StrCat("a metric left out of the merge: ", merged_metrics_.message()));
  }
  store::Batch batch;
  tree_.TakeChangedRows(batch);
  const StoppedWindow& first = group_.members.front();
  store::SessionRow session{period_id_,
                            PeriodName(first.name, group_.period),
                            first.uid,
                            store::SessionState::kStopped,
                            group_.start_unix_ns,
                            group_.end_unix_ns,
                            {}};
  session.always_on_window = true;
  session.period = group_.period;
  session.job = first.job;
  session.window_summary = SummarizePeriod(batch, problems);
  session.problems = std::move(problems);
  batch.sessions = {session};
  for (const auto& [process_id, row] : processes_) batch.session_processes.push_back(row);
  std::vector<uint64_t> members;
  for (const StoppedWindow& member : group_.members) members.push_back(member.session_id);
  RETURN_IF_ERROR(store.ReplaceWithPeriod(batch, members));
  return session;
}

store::WindowSummaryRow PeriodMerge::SummarizePeriod(const store::Batch& merged,
                                                     std::vector<std::string>& problems) const {
  store::WindowSummaryRow row{period_id_, gpu_time_ns_,       gpus_used_,  "",
                              0,          verdict_.Verdict(), recorded_ns_};
  const store::StoredTree tree{merged.nodes, merged.node_stats, merged.metrics, devices_};
  const absl::StatusOr<v1::WindowSummary> summary =
      view::SummarizeWindowTree(query::BuildTree(tree, /*instructions=*/false));
  if (!summary.ok()) {
    problems.push_back(
        absl::StrCat("no top kernel: the merged tree: ", summary.status().message()));
    return row;
  }
  row.gpu_time_ns = summary->gpu_time_ns();
  row.gpus_used = std::max(gpus_used_, summary->gpus_used());
  row.top_kernel = summary->top_kernel();
  row.top_kernel_time_ns = summary->top_kernel_time_ns();
  return row;
}

}  // namespace protond::always_on
