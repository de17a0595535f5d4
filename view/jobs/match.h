// Collective calls matched across the ranks of their communicator by (communicator, sequence
// number): who arrived, in which order, who came last, how late each rank was and how long each
// early rank waited; with the calls that cannot be compared said apart (a rank missing, hosts
// whose clocks are not known to agree). Pure; no I/O.
#ifndef PROTOND_VIEW_JOBS_MATCH_H_
#define PROTOND_VIEW_JOBS_MATCH_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "view/jobs/collective.h"

namespace protond::view {

// How many sequence gaps and rank exits are listed per communicator; all are counted.
inline constexpr size_t kMaxListedGaps = 64;

struct MatchOptions {
  // Per host, what to add to its times to put them on the reference clock (estimated elsewhere,
  // for instance from the RPC round trips between the daemons). A call whose ranks sit on several
  // hosts is compared only when each of those hosts has an offset here.
  std::map<std::string, int64_t> clock_offset_ns;
};

// One rank's part in a matched call. Times are on the reference clock where its host has an
// offset, else on its host's clock: its GPU's (the call's kernel) when every rank's record has
// them, else its host's (when it called NCCL).
struct Arrival {
  int rank = 0;
  ProcessId process;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t lateness_ns = 0;  // its start minus the first start; 0 unless the call is judged
  int64_t wait_ns = 0;      // the last start minus its start; 0 unless the call is judged
};

// One call of a collective, over the ranks that reported it.
struct MatchedCall {
  uint64_t comm_id = 0;
  uint64_t seq = 0;
  CollectiveOp op = CollectiveOp::kAllReduce;
  int nranks = 1;
  uint64_t bytes = 0;                                     // the first arrival's
  std::string datatype, algorithm, protocol, scope_path;  // the lowest rank's
  std::vector<Arrival> arrivals;  // in arrival order: by start, then by rank
  // The arrivals are the GPUs' kernel times (every rank's record had them), not the hosts'.
  bool gpu_times = false;
  bool complete = false;  // every rank of the communicator reported it
  // Why the ranks' times cannot be compared ("no clock offset for host node02"); "" when they can.
  std::string refused;
  // The one rank that started last; -1 unless judged, and on a tie for last.
  int last_rank = -1;
  // From the last start to the last end: the time the collective ran once every rank was there
  // (what nccl-tests times, its ranks started together). 0 unless judged.
  int64_t transfer_ns = 0;
  double alg_bw_gbps = 0;  // bytes / transfer time, in GB/s (1e9 bytes); 0 unless judged
  double bus_bw_gbps = 0;  // alg_bw_gbps * BusBandwidthFactor

  // Complete and comparable: used for lateness, waits, the verdict and bandwidth.
  bool judged() const { return complete && refused.empty(); }
};

// Sequence numbers no rank reported, between the first and the last that one did.
struct SequenceGap {
  uint64_t first = 0;
  uint64_t last = 0;
};

// A rank last seen before the communicator's last call: it exited (or its window was cut).
struct RankExit {
  int rank = 0;
  uint64_t last_seq = 0;
  uint64_t calls_missed = 0;  // the communicator's calls after last_seq
};

struct CommunicatorCalls {
  uint64_t comm_id = 0;
  int nranks = 1;
  std::map<int, ProcessId> members;  // the ranks seen, with their processes
  std::vector<MatchedCall> calls;    // by sequence number
  std::vector<SequenceGap> gaps;     // the first kMaxListedGaps
  uint64_t missing_seqs = 0;         // sequence numbers in all gaps
  std::vector<RankExit> exits;       // by rank
};

struct MatchedJob {
  std::vector<CommunicatorCalls> communicators;  // by comm_id
};

// Groups validated records (validate.h) by (communicator, seq). Each group is one MatchedCall.
MatchedJob MatchCollectives(const std::vector<CollectiveRecord>& records,
                            const MatchOptions& options);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_MATCH_H_
