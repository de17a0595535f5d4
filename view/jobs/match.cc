#include "view/jobs/match.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/text/printable_text.h"

namespace protond::view {
namespace {

using CallKey = std::pair<uint64_t, uint64_t>;  // (comm_id, seq)

// Puts the arrivals' times on one clock, or says why it cannot. Times within one host are
// compared as they are; across hosts each needs an offset, and a sum or a difference past int64
// (from hostile times) refuses the call rather than wrapping.
std::string AlignClocks(const MatchOptions& options, std::vector<Arrival>& arrivals) {
  std::set<std::string> hosts;
  for (const Arrival& a : arrivals) hosts.insert(a.process.host);
  std::vector<std::string> unknown;
  for (const std::string& host : hosts) {
    if (!options.clock_offset_ns.contains(host)) unknown.push_back(text::PrintableText(host));
  }
  if (hosts.size() > 1 && !unknown.empty()) {
    return absl::StrFormat("the call spans hosts %s; no clock offset is known for %s",
                           absl::StrJoin(hosts, ", ",
                                         [](std::string* out, const std::string& h) {
                                           out->append(text::PrintableText(h));
                                         }),
                           absl::StrJoin(unknown, ", "));
  }
  if (unknown.empty()) {
    std::vector<Arrival> shifted = arrivals;
    for (Arrival& a : shifted) {
      const int64_t offset = options.clock_offset_ns.at(a.process.host);
      if (__builtin_add_overflow(a.start_ns, offset, &a.start_ns) ||
          __builtin_add_overflow(a.end_ns, offset, &a.end_ns)) {
        return "a time is out of range once its host's clock offset is applied";
      }
    }
    arrivals = std::move(shifted);
  }
  int64_t span = 0;
  const auto [first, last] = std::minmax_element(
      arrivals.begin(), arrivals.end(),
      [](const Arrival& a, const Arrival& b) { return a.start_ns < b.start_ns; });
  const auto latest_end =
      std::max_element(arrivals.begin(), arrivals.end(),
                       [](const Arrival& a, const Arrival& b) { return a.end_ns < b.end_ns; });
  if (__builtin_sub_overflow(last->start_ns, first->start_ns, &span) ||
      __builtin_sub_overflow(latest_end->end_ns, first->start_ns, &span)) {
    return "the ranks' times are too far apart to compare";
  }
  return "";
}

// Lateness, waits, the last rank and the bandwidth of a complete, comparable call.
void JudgeCall(MatchedCall& call) {
  const int64_t first_start = call.arrivals.front().start_ns;
  const int64_t last_start = call.arrivals.back().start_ns;
  int64_t last_end = last_start;
  for (Arrival& a : call.arrivals) {
    a.lateness_ns = a.start_ns - first_start;
    a.wait_ns = last_start - a.start_ns;
    last_end = std::max(last_end, a.end_ns);
  }
  const size_t n = call.arrivals.size();
  const bool tie = n > 1 && call.arrivals[n - 2].start_ns == last_start;
  call.last_rank = tie ? -1 : call.arrivals.back().rank;
  call.transfer_ns = last_end - last_start;
  if (call.transfer_ns > 0) {
    call.alg_bw_gbps = static_cast<double>(call.bytes) / static_cast<double>(call.transfer_ns);
    call.bus_bw_gbps = BusBandwidthGbps(call.op, call.nranks, call.bytes, call.transfer_ns);
  }
}

MatchedCall BuildCall(const std::vector<const CollectiveRecord*>& ranks,
                      const MatchOptions& options) {
  const CollectiveRecord& lowest = *ranks.front();  // ranks come sorted by rank
  MatchedCall call;
  call.comm_id = lowest.comm_id;
  call.seq = lowest.seq;
  call.op = lowest.op;
  call.nranks = lowest.nranks;
  call.bytes = lowest.bytes;
  call.datatype = lowest.datatype;
  call.algorithm = lowest.algorithm;
  call.protocol = lowest.protocol;
  call.scope_path = lowest.scope_path;
  // A GPU waits for the last GPU to reach the collective; a host's call time says when the work
  // was queued, which runs ahead of its GPU. One clock per call: the GPUs' only when all have one.
  call.gpu_times = std::all_of(ranks.begin(), ranks.end(),
                               [](const CollectiveRecord* r) { return r->gpu.has_value(); });
  for (const CollectiveRecord* r : ranks) {
    Arrival& arrival = call.arrivals.emplace_back();
    arrival.rank = r->rank;
    arrival.process = r->process();
    const TimeSpanNs times = call.gpu_times ? *r->gpu : TimeSpanNs{r->start_ns, r->end_ns};
    arrival.start_ns = times.start_ns;
    arrival.end_ns = times.end_ns;
  }
  call.complete = static_cast<int>(ranks.size()) == lowest.nranks;
  call.refused = AlignClocks(options, call.arrivals);
  std::sort(call.arrivals.begin(), call.arrivals.end(), [](const Arrival& a, const Arrival& b) {
    return std::tie(a.start_ns, a.rank) < std::tie(b.start_ns, b.rank);
  });
  if (call.judged()) JudgeCall(call);
  return call;
}

void FindGapsAndExits(CommunicatorCalls& comm) {
  for (size_t i = 1; i < comm.calls.size(); ++i) {
    const uint64_t before = comm.calls[i - 1].seq;
    const uint64_t after = comm.calls[i].seq;
    if (after - before < 2) continue;
    comm.missing_seqs += after - before - 1;  // in all at most last - first: it cannot wrap
    if (comm.gaps.size() < kMaxListedGaps) comm.gaps.push_back({before + 1, after - 1});
  }
  std::map<int, uint64_t> last_seq;  // calls are in seq order: the last write wins
  for (const MatchedCall& call : comm.calls) {
    for (const Arrival& a : call.arrivals) last_seq[a.rank] = call.seq;
  }
  for (const auto& [rank, seq] : last_seq) {
    const auto after =
        std::upper_bound(comm.calls.begin(), comm.calls.end(), seq,
                         [](uint64_t s, const MatchedCall& call) { return s < call.seq; });
    const uint64_t missed = comm.calls.end() - after;
    if (missed > 0 && comm.exits.size() < kMaxListedGaps) comm.exits.push_back({rank, seq, missed});
  }
}

}  // namespace

MatchedJob MatchCollectives(const std::vector<CollectiveRecord>& records,
                            const MatchOptions& options) {
  // (comm, seq) -> its records by rank. Validation left at most one per (comm, seq, rank).
  std::map<CallKey, std::map<int, const CollectiveRecord*>> groups;
  for (const CollectiveRecord& r : records) groups[{r.comm_id, r.seq}][r.rank] = &r;

  MatchedJob job;
  for (const auto& [key, by_rank] : groups) {
    if (job.communicators.empty() || job.communicators.back().comm_id != key.first) {
      job.communicators.emplace_back();
      job.communicators.back().comm_id = key.first;
      job.communicators.back().nranks = by_rank.begin()->second->nranks;
    }
    CommunicatorCalls& comm = job.communicators.back();
    std::vector<const CollectiveRecord*> ranks;
    for (const auto& [rank, record] : by_rank) {
      ranks.push_back(record);
      comm.members.emplace(rank, record->process());
    }
    comm.calls.push_back(BuildCall(ranks, options));
  }
  for (CommunicatorCalls& comm : job.communicators) FindGapsAndExits(comm);
  return job;
}

}  // namespace protond::view
