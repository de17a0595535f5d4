#include "daemon/always_on/history_retention.h"

#include <algorithm>

#include "common/status/status_macros.h"

namespace protond::always_on {

absl::Status HistoryRetention::Step(store::Store& store, const std::vector<StoppedWindow>& windows,
                                    int64_t now_unix_ns,
                                    std::chrono::steady_clock::time_point deadline,
                                    absl::FunctionRef<uint64_t()> new_session_id,
                                    Changes& changes) {
  std::vector<uint64_t>& deleted = changes.deleted;
  const auto out_of_time = [deadline] { return std::chrono::steady_clock::now() >= deadline; };
  // Oldest first: while a backlog is measured (a restart over a large history), the measured
  // windows are the oldest ones, so the cap never deletes a window before an older one.
  std::vector<StoppedWindow> by_age = windows;
  std::sort(by_age.begin(), by_age.end(), [](const StoppedWindow& a, const StoppedWindow& b) {
    return std::pair(a.start_time_unix_ns, a.session_id) <
           std::pair(b.start_time_unix_ns, b.session_id);
  });
  for (const StoppedWindow& window : by_age) {
    if (measured_.contains(window.session_id)) continue;
    if (out_of_time()) return absl::OkStatus();
    RETURN_IF_ERROR(Measure(store, window, deleted));
  }
  // by_age less the empty windows just deleted: what the periods merge.
  std::erase_if(by_age, [&deleted](const StoppedWindow& window) {
    return std::find(deleted.begin(), deleted.end(), window.session_id) != deleted.end();
  });
  while (!out_of_time()) {
    ASSIGN_OR_RETURN(const bool advanced,
                     AdvancePeriods(store, by_age, now_unix_ns, new_session_id, changes));
    if (!advanced) break;
  }
  while (history_bytes_ > policy_.history_max_bytes && !by_age_.empty()) {
    if (out_of_time()) return absl::OkStatus();
    RETURN_IF_ERROR(DeleteOldest(store, deleted));
  }
  return absl::OkStatus();
}

absl::Status HistoryRetention::Measure(store::Store& store, const StoppedWindow& window,
                                       std::vector<uint64_t>& deleted) {
  if (window.records == 0 && window.dropped_records == 0) {
    RETURN_IF_ERROR(store.DeleteHistorySession(window.session_id));
    deleted.push_back(window.session_id);
    ++counters_.empty_windows_deleted;
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(const uint64_t bytes, store.SessionStoredBytes(window.session_id));
  measured_[window.session_id] = {window.start_time_unix_ns, bytes};
  by_age_.emplace(window.start_time_unix_ns, window.session_id);
  history_bytes_ += bytes;
  return absl::OkStatus();
}

absl::StatusOr<bool> HistoryRetention::AdvancePeriods(store::Store& store,
                                                      std::vector<StoppedWindow>& history,
                                                      int64_t now_unix_ns,
                                                      absl::FunctionRef<uint64_t()> new_session_id,
                                                      Changes& changes) {
  if (!merging_.has_value()) {
    std::optional<PeriodGroup> group =
        NextDuePeriod(history, policy_.keep_windows, policy_.keep_hourly, now_unix_ns);
    if (!group.has_value()) return false;
    merging_.emplace(*std::move(group), new_session_id());
  }
  const absl::StatusOr<bool> all_in = merging_->AddNextMember(store);
  if (!all_in.ok()) {
    merging_.reset();  // begun again from the store at the next step
    return all_in.status();
  }
  if (!*all_in) return true;  // the next member at the next turn, or the next step
  absl::StatusOr<store::SessionRow> period = merging_->Finish(store);
  const PeriodGroup group = merging_->group();
  merging_.reset();
  if (!period.ok()) return period.status();
  std::erase_if(history, [&group](const StoppedWindow& window) {
    return std::any_of(
        group.members.begin(), group.members.end(),
        [&window](const StoppedWindow& m) { return m.session_id == window.session_id; });
  });
  for (const StoppedWindow& member : group.members) {
    changes.deleted.push_back(member.session_id);
    Forget(member.session_id);
  }
  // The period is measured when the next Step is given it with the daemon's other windows; a
  // day may take it within this one.
  StoppedWindow& made = history.emplace_back(group.members.front());
  made.session_id = period->session_id;
  made.start_time_unix_ns = period->start_time_unix_ns;
  made.name = period->name;
  made.period = period->period;
  ++(period->period == store::HistoryPeriod::kDay ? counters_.days_made : counters_.hours_made);
  changes.periods.push_back(*std::move(period));
  return true;
}

void HistoryRetention::Forget(uint64_t session_id) {
  auto it = measured_.find(session_id);
  if (it == measured_.end()) return;
  by_age_.erase({it->second.start_time_unix_ns, session_id});
  history_bytes_ -= it->second.bytes;
  measured_.erase(it);
}

absl::Status HistoryRetention::DeleteOldest(store::Store& store, std::vector<uint64_t>& deleted) {
  const uint64_t session_id = by_age_.begin()->second;
  RETURN_IF_ERROR(store.DeleteHistorySession(session_id));
  deleted.push_back(session_id);
  const uint64_t bytes = measured_[session_id].bytes;
  Forget(session_id);
  ++counters_.windows_deleted_for_cap;
  counters_.bytes_deleted_for_cap += bytes;
  return absl::OkStatus();
}

}  // namespace protond::always_on
