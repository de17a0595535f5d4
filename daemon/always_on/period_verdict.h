// A period's verdict on its collective calls (docs/always-on.md, "Retention"), from its members'
// verdicts: a period keeps no calls of its own (they are deleted with its windows), so it cannot
// be judged again as a window is; what its members found is summed up instead.
//
// The rule: the calls, the judged calls and the others' wait are summed. The rank named late by
// the members that hold the most judged calls (ties: the lower rank) is the period's late rank
// when those members hold at least the share of the period's judged calls that a window's rank
// needs of its calls (view::VerdictOptions::min_last_share): an hour whose windows name rank 1
// in most of its calls names rank 1, one where most calls were judged balanced names none. Its
// lateness is the mean of those members' lateness weighted by their judged calls, its pid the
// newest of them. The others' wait share is the members' shares weighted by the time they
// recorded. A day sums up its hours by the same rule, each hour weighing all its judged calls.
//
// Pure; not thread-safe.
#ifndef PROTOND_DAEMON_ALWAYS_ON_PERIOD_VERDICT_H_
#define PROTOND_DAEMON_ALWAYS_ON_PERIOD_VERDICT_H_

#include <cstdint>
#include <map>

#include "daemon/store/store.h"

namespace protond::always_on {

class PeriodVerdict {
 public:
  // The next member's verdict (members oldest first), over `recorded_ns` of recording.
  void Add(const store::WindowVerdictRow& member, int64_t recorded_ns);
  store::WindowVerdictRow Verdict() const;

 private:
  // What the members naming one rank hold.
  struct NamedRank {
    uint64_t judged_calls = 0;
    double lateness_weighted_ns = 0;  // each member's late_mean_ns times its judged calls
    uint32_t pid = 0;                 // the newest member's
  };

  store::WindowVerdictRow sums_;
  std::map<int32_t, NamedRank> named_;  // by rank
  double wait_share_weighted_ = 0;      // each member's share times its recorded time
  int64_t recorded_with_calls_ns_ = 0;  // the recorded time of members with calls
};

}  // namespace protond::always_on

#endif  // PROTOND_DAEMON_ALWAYS_ON_PERIOD_VERDICT_H_
