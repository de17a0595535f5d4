#include "view/jobs/verdict_text.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/text/printable_text.h"
#include "view/jobs/time_text.h"

namespace protond::view {
namespace {

// "rank 0", "ranks 0 and 2", "ranks 0, 2 and 3".
std::string RankList(const std::vector<int>& ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) out += i + 1 == ranks.size() ? " and " : ", ";
    absl::StrAppend(&out, ranks[i]);
  }
  return out;
}

}  // namespace

std::string RenderVerdict(const Verdict& v) {
  if (!v.late) return "no rank is late: " + v.reason;
  std::string line = absl::StrFormat(
      "rank %d (pid %d, %s) arrives last at %d of %d %s calls, on average %s after the first",
      v.rank, v.process.pid, text::PrintableText(v.process.host), v.last_calls, v.candidate_calls,
      v.op_name, FormatTimeNs(v.mean_lateness_ns));
  if (v.other_ranks.empty()) return line;
  absl::StrAppend(&line, "; ", RankList(v.other_ranks), " waited ",
                  FormatTimeNs(static_cast<double>(v.others_wait_ns)), " in all");
  if (v.others_wait_share) {
    absl::StrAppendFormat(&line, " (%.0f%% of %s GPU time)", 100 * *v.others_wait_share,
                          v.other_ranks.size() == 1 ? "its" : "their");
  }
  return line;
}

std::string RenderJobVerdict(const JobVerdict& verdict) {
  std::string out = absl::StrCat("job: ", RenderVerdict(verdict.job), "\n");
  for (const CommunicatorVerdict& comm : verdict.communicators) {
    absl::StrAppendFormat(&out, "communicator %#x (%d ranks): %s\n", comm.comm_id, comm.nranks,
                          RenderVerdict(comm.verdict));
  }
  return out;
}

std::string RenderArrivalClock(const MatchedJob& matched) {
  uint64_t judged = 0;
  uint64_t on_gpu = 0;
  for (const CommunicatorCalls& comm : matched.communicators) {
    for (const MatchedCall& call : comm.calls) {
      if (!call.judged()) continue;
      ++judged;
      if (call.gpu_times) ++on_gpu;
    }
  }
  if (on_gpu == judged) {
    return absl::StrFormat(
        "arrivals: when each rank's GPU began the call's NCCL kernel (%d judged calls)", judged);
  }
  if (on_gpu == 0) {
    return absl::StrFormat(
        "arrivals: when each rank's host called NCCL (%d judged calls; no call's kernel was timed "
        "on every rank)",
        judged);
  }
  return absl::StrFormat(
      "arrivals: GPU kernel starts at %d of %d judged calls, host call times at the rest "
      "(their kernel was not timed on every rank)",
      on_gpu, judged);
}

}  // namespace protond::view
