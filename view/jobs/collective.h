// Collectives as protond reads them: one call of one NCCL collective on one rank, as the NCCL
// profiler plugin reports it (or, without the plugin, as matched from NCCL's kernels), and the
// arithmetic nccl-tests uses for their bandwidth. Pure; no I/O.
#ifndef PROTOND_VIEW_JOBS_COLLECTIVE_H_
#define PROTOND_VIEW_JOBS_COLLECTIVE_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace protond::view {

enum class CollectiveOp {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kGather,
  kScatter,
  kSend,
  kRecv,
};

// "all_reduce", "all_gather", ...: the names protond prints.
std::string_view CollectiveOpName(CollectiveOp op);

// The op a plugin named, in protond's spelling ("all_reduce") or NCCL's ("AllReduce"), any case;
// nullopt for anything else.
std::optional<CollectiveOp> ParseCollectiveOp(std::string_view name);

// nccl-tests' bus bandwidth factor (its PERFORMANCE.md): busBw = algBw * factor, where algBw is
// the call's bytes (as nccl-tests counts them: the whole array for all_gather, reduce_scatter and
// all_to_all) over its time. 2(n-1)/n for all_reduce; (n-1)/n for all_gather, reduce_scatter,
// all_to_all, gather and scatter; 1 for broadcast, reduce, send and recv. `nranks` >= 1.
double BusBandwidthFactor(CollectiveOp op, int nranks);

// nccl-tests' bus bandwidth of `bytes` moved in `time_ns`, in GB/s (1e9 bytes): the algorithm
// bandwidth times BusBandwidthFactor. 0 when `time_ns` is not positive.
double BusBandwidthGbps(CollectiveOp op, int nranks, uint64_t bytes, int64_t time_ns);

// total += value, stopping at INT64_MAX: sums of times from hostile records must not wrap.
inline void AddSaturating(int64_t& total, int64_t value) {
  if (__builtin_add_overflow(total, value, &total)) total = value < 0 ? INT64_MIN : INT64_MAX;
}

// A span of time on a host's clock (ns).
struct TimeSpanNs {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  friend bool operator==(const TimeSpanNs&, const TimeSpanNs&) = default;
};

// Which process a rank is: its host and pid. Ordered so that it can key a std::map.
struct ProcessId {
  std::string host;
  int64_t pid = 0;
  auto operator<=>(const ProcessId&) const = default;
};

// One call of one collective on one rank, as the plugin sent it. Every field comes from inside
// the user's process and is untrusted until ValidateCollectives (validate.h) has checked it; the
// daemon will overwrite pid and host with what the socket says (SO_PEERCRED) before that.
struct CollectiveRecordUntrusted {
  std::string job;         // the job's id (SLURM_JOB_ID, TORCHELASTIC_RUN_ID, ...)
  std::string host;        // the node the rank runs on; its clock times start_ns and end_ns
  int64_t rank = 0;        // the rank in the communicator, not in the world
  int64_t pid = 0;         // the process that holds the rank
  uint64_t comm_id = 0;    // NCCL's commHash
  uint64_t seq = 0;        // the call's number within the communicator, as the rank counts
  std::string op;          // "all_reduce", or NCCL's "AllReduce"
  uint64_t bytes = 0;      // the message size as nccl-tests counts it
  std::string datatype;    // "f32", "bf16", ...
  std::string algorithm;   // "RING", "TREE", "NVLS", ...
  std::string protocol;    // "LL", "LL128", "SIMPLE"
  int64_t nranks = 0;      // ranks in the communicator
  int64_t start_ns = 0;    // when the rank launched it, on its host's clock
  int64_t end_ns = 0;      // when it completed on that rank
  std::string scope_path;  // the scope it was launched under ("train/step/backward"), or ""
  // When the GPU ran the call's kernel, on the same clock, where known (the plugin's calls whose
  // kernel CUPTI timed): its start is when this rank's GPU reached the collective.
  std::optional<TimeSpanNs> gpu;
};

// The same call once ValidateCollectives accepted it: its op known, 0 <= rank < nranks,
// start_ns <= end_ns, its strings of bounded length and well-formed UTF-8.
struct CollectiveRecord {
  std::string job;
  std::string host;
  int rank = 0;
  int64_t pid = 0;
  uint64_t comm_id = 0;
  uint64_t seq = 0;
  CollectiveOp op = CollectiveOp::kAllReduce;
  uint64_t bytes = 0;
  std::string datatype;
  std::string algorithm;
  std::string protocol;
  int nranks = 1;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string scope_path;
  std::optional<TimeSpanNs> gpu;

  ProcessId process() const { return {host, pid}; }
};

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_COLLECTIVE_H_
