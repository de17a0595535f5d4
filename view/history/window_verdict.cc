#include "view/history/window_verdict.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "view/jobs/match.h"
#include "view/jobs/plugin_records.h"
#include "view/jobs/time_text.h"
#include "view/jobs/validate.h"
#include "view/jobs/verdict.h"

namespace protond::view {

std::optional<v1::WindowVerdict> JudgeWindow(const v1::Collectives& calls, double length_ns) {
  if (calls.events().empty()) return std::nullopt;
  const PluginSession session{.collectives = &calls};
  const ValidatedCollectives valid =
      ValidateCollectives(CollectivesFromPlugin({&session, 1}, ""), "");
  const Verdict verdict = JudgeJob(MatchCollectives(valid.records, {}), {}).job;
  v1::WindowVerdict out;
  out.set_collective_calls(calls.events_size());
  out.set_judged_calls(verdict.judged_calls);
  out.set_late_rank(verdict.late ? verdict.rank : -1);
  if (verdict.late) {
    out.set_late_pid(static_cast<uint32_t>(verdict.process.pid));
    out.set_late_mean_ns(verdict.mean_lateness_ns);
  }
  out.set_others_wait_ns(static_cast<double>(verdict.others_wait_ns));
  const double others_time_ns = length_ns * static_cast<double>(verdict.other_ranks.size());
  if (others_time_ns > 0) out.set_others_wait_share(verdict.others_wait_ns / others_time_ns);
  return out;
}

std::optional<std::string> LateRankText(const v1::WindowSummary& summary) {
  if (!summary.has_verdict() || summary.verdict().late_rank() < 0) return std::nullopt;
  return absl::StrCat("rank ", summary.verdict().late_rank(), " +",
                      FormatTimeNs(summary.verdict().late_mean_ns()));
}

}  // namespace protond::view
