#include "daemon/always_on/window_scheduler.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace protond::always_on {
namespace {

absl::Status RegexError(const re2::RE2& regex) {
  return absl::InvalidArgumentError(
      absl::StrCat("bad command regex '", regex.pattern(), "': ", regex.error()));
}

}  // namespace

absl::Status CheckCommandRegex(const std::string& regex) {
  const re2::RE2 compiled(regex, re2::RE2::Quiet);
  return compiled.ok() ? absl::OkStatus() : RegexError(compiled);
}

absl::StatusOr<std::unique_ptr<WindowScheduler>> WindowScheduler::Create(WindowPolicy policy) {
  if (policy.window.count() <= 0 || policy.period.count() <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("the window (", policy.window.count(),
                                                   " ms) and the period (", policy.period.count(),
                                                   " ms) must be more than zero"));
  }
  if (policy.window >= policy.period) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the window (", policy.window.count(), " ms) must be shorter than the period (",
        policy.period.count(), " ms): a process's windows may not overlap"));
  }
  std::unique_ptr<re2::RE2> command;
  if (!policy.command_regex.empty()) {
    command = std::make_unique<re2::RE2>(policy.command_regex, re2::RE2::Quiet);
    if (!command->ok()) return RegexError(*command);
  }
  return std::unique_ptr<WindowScheduler>(
      new WindowScheduler(std::move(policy), std::move(command)));
}

WindowScheduler::WindowScheduler(WindowPolicy policy, std::unique_ptr<re2::RE2> command)
    : policy_(std::move(policy)), command_(std::move(command)) {}

WindowScheduler::~WindowScheduler() = default;

namespace {

void SortByProcessId(Window& window) {
  std::vector<std::pair<uint64_t, uint32_t>> members;
  for (size_t i = 0; i < window.process_ids.size(); ++i) {
    members.emplace_back(window.process_ids[i], window.pids[i]);
  }
  std::sort(members.begin(), members.end());
  for (size_t i = 0; i < members.size(); ++i) {
    std::tie(window.process_ids[i], window.pids[i]) = members[i];
  }
}

}  // namespace

bool WindowScheduler::Selects(const Candidate& process) const {
  const auto& uids = policy_.uids;
  const auto& jobs = policy_.jobs;
  if (!uids.empty() && std::find(uids.begin(), uids.end(), process.uid) == uids.end()) {
    return false;
  }
  if (!jobs.empty() && std::find(jobs.begin(), jobs.end(), process.job) == jobs.end()) {
    return false;
  }
  return command_ == nullptr || re2::RE2::PartialMatch(process.command, *command_);
}

Plan WindowScheduler::Tick(const std::vector<Candidate>& processes, Clock::time_point now) {
  // Periods are counted from the epoch of the wall clock: the same on every node of a job.
  const auto since_epoch =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch());
  const int64_t period = since_epoch / policy_.period;
  const Clock::time_point start(policy_.period * period);
  const bool in_window = now < start + policy_.window;

  std::map<uint64_t, Seen> seen;
  // Windows by (job, uid); a process of no job is a group of its own (its process id).
  std::map<std::tuple<std::string, uint32_t, uint64_t>, Window> groups;
  Plan plan;
  for (const Candidate& process : processes) {
    auto [it, inserted] = seen.emplace(process.process_id, Seen{now});
    if (auto before = seen_.find(process.process_id); before != seen_.end())
      it->second = before->second;
    Seen& state = it->second;
    if (!in_window || state.first > start || state.last_period == period) continue;
    if (!Selects(process) || process.busy == Candidate::Busy::kWindowSession) continue;
    state.last_period = period;
    if (process.busy == Candidate::Busy::kHandSession) {
      plan.skipped.push_back(process.process_id);
      ++skipped_by_process_[process.process_id];
      ++windows_skipped_;
      continue;
    }
    Window& window =
        groups[{process.job, process.uid, process.job.empty() ? process.process_id : 0}];
    window.job = process.job;
    window.uid = process.uid;
    window.process_ids.push_back(process.process_id);
    window.pids.push_back(process.pid);
    window.start = start;
    window.end = start + policy_.window;
  }
  seen_ = std::move(seen);
  for (auto it = skipped_by_process_.begin(); it != skipped_by_process_.end();) {
    it = seen_.contains(it->first) ? std::next(it) : skipped_by_process_.erase(it);
  }
  for (auto& [key, window] : groups) {
    SortByProcessId(window);
    plan.open.push_back(std::move(window));
    ++windows_opened_;
  }
  return plan;
}

}  // namespace protond::always_on
