#include "view/jobs/collective_summary.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace protond::view {
namespace {

std::string MostFrequent(const std::map<std::string, uint64_t>& counts) {
  std::string best;
  uint64_t best_count = 0;
  for (const auto& [name, count] : counts) {
    if (count > best_count) best = name, best_count = count;
  }
  return best;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

struct Accumulator {
  CollectiveSummary summary;
  std::map<std::string, uint64_t> algorithms, protocols;
  std::vector<double> bus_bw;

  void Add(const MatchedCall& call) {
    ++summary.calls;
    // Hostile byte counts are bounded by validation, but 2^40 * 2^24 calls would still wrap.
    if (__builtin_add_overflow(summary.bytes, call.bytes, &summary.bytes)) {
      summary.bytes = UINT64_MAX;
    }
    for (const Arrival& a : call.arrivals)
      AddSaturating(summary.rank_time_ns, a.end_ns - a.start_ns);
    if (!call.algorithm.empty()) ++algorithms[call.algorithm];
    if (!call.protocol.empty()) ++protocols[call.protocol];
    if (!call.judged()) return;
    ++summary.judged_calls;
    AddSaturating(summary.transfer_ns, call.transfer_ns);
    for (const Arrival& a : call.arrivals) AddSaturating(summary.wait_ns, a.wait_ns);
    if (call.transfer_ns > 0) bus_bw.push_back(call.bus_bw_gbps);
  }
};

}  // namespace

std::vector<CollectiveSummary> SummarizeCollectives(const MatchedJob& job) {
  std::map<std::pair<uint64_t, CollectiveOp>, Accumulator> by_key;
  for (const CommunicatorCalls& comm : job.communicators) {
    for (const MatchedCall& call : comm.calls) {
      Accumulator& acc = by_key[{comm.comm_id, call.op}];
      acc.summary.op = call.op;
      acc.summary.comm_id = comm.comm_id;
      acc.summary.nranks = comm.nranks;
      acc.Add(call);
    }
  }
  std::vector<CollectiveSummary> out;
  for (auto& [key, acc] : by_key) {
    acc.summary.algorithm = MostFrequent(acc.algorithms);
    acc.summary.protocol = MostFrequent(acc.protocols);
    acc.summary.median_bus_bw_gbps = Median(std::move(acc.bus_bw));
    out.push_back(std::move(acc.summary));
  }
  // by_key's order is (comm_id, op); a stable sort keeps it among equal times.
  std::stable_sort(out.begin(), out.end(),
                   [](const CollectiveSummary& a, const CollectiveSummary& b) {
                     return a.rank_time_ns > b.rank_time_ns;
                   });
  return out;
}

}  // namespace protond::view
