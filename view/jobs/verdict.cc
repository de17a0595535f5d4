#include "view/jobs/verdict.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "view/jobs/time_text.h"

namespace protond::view {
namespace {

// Who an arrival counts for: its rank (a communicator's verdict) or its process (the job's).
using MemberOf = std::function<int(const Arrival&)>;

// One member's part in the judged calls.
struct Tally {
  ProcessId process;
  uint64_t calls = 0;
  uint64_t last = 0;
  double expected_last = 0;               // sum over its calls of its chance to be last
  double variance = 0;                    // of its count of last arrivals, by chance
  std::vector<int64_t> lateness_ns;       // in each of its calls
  std::vector<int64_t> last_lateness_ns;  // in the calls where it started last
  std::vector<int64_t> transfer_ns;
  std::set<CollectiveOp> ops;
};

int64_t Median(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  if (values.size() % 2 == 1) return values[mid];
  const int64_t upper = values[mid];
  const int64_t lower = *std::max_element(values.begin(), values.begin() + mid);
  return lower + (upper - lower) / 2;
}

void TallyCall(const MatchedCall& call, const MemberOf& member_of, std::map<int, Tally>& tallies) {
  std::map<int, int> ranks;  // member -> its ranks in this call
  std::map<int, int64_t> lateness;
  for (const Arrival& a : call.arrivals) {
    const int m = member_of(a);
    ++ranks[m];
    lateness[m] = std::max(lateness[m], a.lateness_ns);
    tallies[m].process = a.process;
  }
  for (const auto& [m, k] : ranks) {
    Tally& t = tallies[m];
    const double p = static_cast<double>(k) / call.nranks;
    ++t.calls;
    t.expected_last += p;
    t.variance += p * (1 - p);
    t.lateness_ns.push_back(lateness[m]);
    t.transfer_ns.push_back(call.transfer_ns);
    t.ops.insert(call.op);
  }
  if (call.last_rank >= 0) {
    const int last = member_of(call.arrivals.back());
    ++tallies[last].last;
    tallies[last].last_lateness_ns.push_back(lateness[last]);
  }
}

std::string NoJudgedCallReason(const std::vector<const MatchedCall*>& calls) {
  for (const MatchedCall* call : calls) {
    if (call->complete && !call->refused.empty()) {
      return "no call can be compared across hosts: " + call->refused;
    }
  }
  if (calls.empty()) return "no collective calls";
  return absl::StrFormat("none of the %d calls was reported by every rank", calls.size());
}

// The others' waits in the calls the candidate took part in, and their share of GPU time.
void AddOthers(const std::vector<const MatchedCall*>& judged, const MemberOf& member_of,
               int candidate, const std::function<int(int)>& label, const VerdictOptions& options,
               Verdict& v) {
  std::set<int> others;
  std::set<ProcessId> processes;
  for (const MatchedCall* call : judged) {
    const bool with_candidate =
        std::any_of(call->arrivals.begin(), call->arrivals.end(),
                    [&](const Arrival& a) { return member_of(a) == candidate; });
    if (!with_candidate) continue;
    for (const Arrival& a : call->arrivals) {
      if (member_of(a) == candidate) continue;
      others.insert(member_of(a));
      processes.insert(a.process);
      AddSaturating(v.others_wait_ns, a.wait_ns);
    }
  }
  for (int m : others) v.other_ranks.push_back(label(m));
  std::sort(v.other_ranks.begin(), v.other_ranks.end());
  int64_t gpu_ns = 0;
  for (const ProcessId& p : processes) {
    auto it = options.gpu_time_ns.find(p);
    if (it == options.gpu_time_ns.end() || it->second <= 0) return;
    AddSaturating(gpu_ns, it->second);
  }
  if (gpu_ns > 0) v.others_wait_share = static_cast<double>(v.others_wait_ns) / gpu_ns;
}

// Whether the candidate passes the rule of verdict.h; the reason when it does not.
std::string FailedTest(const Verdict& v, const Tally& t, const VerdictOptions& options) {
  const double share = static_cast<double>(t.last) / t.calls;
  const double chance = t.expected_last / t.calls;
  const double beyond_chance =
      (t.expected_last + options.chance_sigmas * std::sqrt(t.variance)) / t.calls;
  const double needed = std::max(options.min_last_share, beyond_chance);
  if (share < needed) {
    return absl::StrFormat(
        "rank %d is last at %d of %d calls (%.0f%%), less than the %.0f%% needed (at least "
        "%.0f%%, and %g sigma above the %.0f%% of chance)",
        v.rank, t.last, t.calls, 100 * share, 100 * needed, 100 * options.min_last_share,
        options.chance_sigmas, 100 * chance);
  }
  const double needed_ns =
      std::max({static_cast<double>(options.min_lateness_ns),
                options.min_lateness_of_transfer * static_cast<double>(v.median_transfer_ns),
                static_cast<double>(options.clock_error_ns)});
  if (v.median_lateness_ns < needed_ns) {
    return absl::StrFormat(
        "rank %d's median lateness %s is below the %s needed (at least %s, and %.0f%% of the "
        "median transfer time %s%s)",
        v.rank, FormatTimeNs(v.median_lateness_ns), FormatTimeNs(needed_ns),
        FormatTimeNs(options.min_lateness_ns), 100 * options.min_lateness_of_transfer,
        FormatTimeNs(v.median_transfer_ns),
        options.clock_error_ns > 0
            ? absl::StrCat(", and the clock offsets' error ", FormatTimeNs(options.clock_error_ns))
            : "");
  }
  return "";
}

Verdict Judge(const std::vector<const MatchedCall*>& calls, const MemberOf& member_of,
              const std::function<int(int)>& label, const VerdictOptions& options) {
  Verdict v;
  std::vector<const MatchedCall*> judged;
  std::map<int, Tally> tallies;
  for (const MatchedCall* call : calls) {
    if (!call->judged()) continue;
    judged.push_back(call);
    TallyCall(*call, member_of, tallies);
  }
  v.judged_calls = judged.size();
  if (judged.empty()) {
    v.reason = NoJudgedCallReason(calls);
    return v;
  }
  // std::map's order and a strict > give ties to the lower member.
  auto candidate = tallies.end();
  for (auto it = tallies.begin(); it != tallies.end(); ++it) {
    if (it->second.last > 0 &&
        (candidate == tallies.end() || it->second.last > candidate->second.last)) {
      candidate = it;
    }
  }
  if (candidate == tallies.end()) {
    v.reason = "no call had a single last rank (the last ranks started together)";
    return v;
  }
  const Tally& t = candidate->second;
  v.rank = label(candidate->first);
  v.process = t.process;
  v.last_calls = t.last;
  v.candidate_calls = t.calls;
  v.op_name = t.ops.size() == 1 ? std::string(CollectiveOpName(*t.ops.begin())) : "collective";
  // The sentence says "arrives last at K of N calls, on average X after the first": X is over
  // those K. The naming test takes the median over all N, where a rank last by chance scores low.
  double sum = 0;
  for (int64_t ns : t.last_lateness_ns) sum += static_cast<double>(ns);
  v.mean_lateness_ns = sum / static_cast<double>(t.last_lateness_ns.size());
  v.median_lateness_ns = Median(t.lateness_ns);
  v.median_transfer_ns = Median(t.transfer_ns);
  AddOthers(judged, member_of, candidate->first, label, options, v);
  v.reason = FailedTest(v, t, options);
  v.late = v.reason.empty();
  return v;
}

// The job's members are processes; each is labelled by its rank in its largest communicator.
Verdict JudgeProcesses(const MatchedJob& job, const VerdictOptions& options) {
  std::map<ProcessId, int> index;
  std::vector<std::pair<int, int>> label_by_index;  // (nranks of that communicator, rank)
  std::vector<const MatchedCall*> calls;
  for (const CommunicatorCalls& comm : job.communicators) {
    for (const auto& [rank, process] : comm.members) {
      auto [it, added] = index.try_emplace(process, static_cast<int>(label_by_index.size()));
      if (added) label_by_index.push_back({0, rank});
      auto& [size, label] = label_by_index[it->second];
      if (comm.nranks > size) size = comm.nranks, label = rank;
    }
    for (const MatchedCall& call : comm.calls) calls.push_back(&call);
  }
  return Judge(
      calls, [&](const Arrival& a) { return index.at(a.process); },
      [&](int member) { return label_by_index[member].second; }, options);
}

}  // namespace

uint64_t MinCallsToNameARank(int nranks, const VerdictOptions& options) {
  if (nranks < 2 || options.min_last_share > 1) return 0;
  // Last at all n calls passes when 1 >= p + sigmas * sqrt(p (1 - p) / n), p = 1 / nranks.
  const double p = 1.0 / nranks;
  const double n = options.chance_sigmas * options.chance_sigmas * p / (1 - p);
  return static_cast<uint64_t>(std::ceil(n - 1e-9));
}

JobVerdict JudgeJob(const MatchedJob& job, const VerdictOptions& options) {
  JobVerdict out;
  for (const CommunicatorCalls& comm : job.communicators) {
    std::vector<const MatchedCall*> calls;
    for (const MatchedCall& call : comm.calls) calls.push_back(&call);
    out.communicators.push_back({comm.comm_id, comm.nranks,
                                 Judge(
                                     calls, [](const Arrival& a) { return a.rank; },
                                     [](int rank) { return rank; }, options)});
  }
  out.job = JudgeProcesses(job, options);
  return out;
}

}  // namespace protond::view
