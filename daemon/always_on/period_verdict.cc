#include "daemon/always_on/period_verdict.h"

#include "view/jobs/verdict.h"

namespace protond::always_on {

void PeriodVerdict::Add(const store::WindowVerdictRow& member, int64_t recorded_ns) {
  sums_.collective_calls += member.collective_calls;
  sums_.judged_calls += member.judged_calls;
  sums_.others_wait_ns += member.others_wait_ns;
  if (member.collective_calls > 0 && recorded_ns > 0) {
    wait_share_weighted_ += member.others_wait_share * static_cast<double>(recorded_ns);
    recorded_with_calls_ns_ += recorded_ns;
  }
  if (member.late_rank < 0 || member.judged_calls == 0) return;
  NamedRank& named = named_[member.late_rank];
  named.judged_calls += member.judged_calls;
  named.lateness_weighted_ns += member.late_mean_ns * static_cast<double>(member.judged_calls);
  named.pid = member.late_pid;
}

store::WindowVerdictRow PeriodVerdict::Verdict() const {
  store::WindowVerdictRow verdict = sums_;
  if (recorded_with_calls_ns_ > 0) {
    verdict.others_wait_share = wait_share_weighted_ / static_cast<double>(recorded_with_calls_ns_);
  }
  const NamedRank* most = nullptr;
  for (const auto& [rank, named] : named_) {
    if (most == nullptr || named.judged_calls > most->judged_calls) {
      most = &named;
      verdict.late_rank = rank;
    }
  }
  const double needed =
      view::VerdictOptions{}.min_last_share * static_cast<double>(sums_.judged_calls);
  if (most == nullptr || static_cast<double>(most->judged_calls) < needed) {
    verdict.late_rank = -1;
    return verdict;
  }
  verdict.late_pid = most->pid;
  verdict.late_mean_ns = most->lateness_weighted_ns / static_cast<double>(most->judged_calls);
  return verdict;
}

}  // namespace protond::always_on
