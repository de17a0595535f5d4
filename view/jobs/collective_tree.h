// A session's NCCL collective calls (from the shim's NCCL profiler plugin) folded into its call
// tree: under each scope that made calls, one node per kind of call (op, communicator size), with
// the calls, bytes, time, bus bandwidth and, where the session holds every rank, the wait
// (docs/jobs.md, "In the tree"). Pure; no I/O.
#ifndef PROTOND_VIEW_JOBS_COLLECTIVE_TREE_H_
#define PROTOND_VIEW_JOBS_COLLECTIVE_TREE_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view {

// The metrics of a collective node. All are EXCLUSIVE (a node's own value, never summed into its
// parents) but the bandwidth, a PROPERTY: the calls' NCCL kernels are nodes of the tree already,
// and their GPU time is in every ancestor's inclusive time once; these nodes add no "time (ns)",
// no count and no scope timings, so no inclusive value of the tree changes.
inline constexpr char kNcclCallsMetric[] = "nccl_calls";
inline constexpr char kNcclBytesMetric[] = "nccl_bytes";  // nccl-tests' count (plugin_records.h)
// Each call's NCCL kernel's GPU time where known, else the call's host time (the notes say how
// many calls that is).
inline constexpr char kNcclTimeMetric[] = "nccl_time (ns)";
// The bytes over the calls' times, times nccl-tests' factor (BusBandwidthGbps). A call that every
// rank of its communicator reported counts its transfer time (from the last arrival, match.h);
// any other its own time, its wait included.
inline constexpr char kNcclBusBandwidthMetric[] = "nccl_bus_bw (GB/s)";
// How long these calls waited for the last rank to arrive, summed over the calls that every rank
// of the communicator reported in this session; absent where there is none.
inline constexpr char kNcclWaitMetric[] = "nccl_wait (ns)";

// `tree` with a node for each (scope, op, communicator size) of `collectives`' calls, appended
// after the tree's nodes (so parents still precede children), each named like
// "all_reduce [nccl, 2 ranks, RING/LL]" (the algorithm and protocol when all its calls agree).
// The calls are matched across all of `collectives`' ranks, so that each one's wait is known, and
// those of the processes in `shown_pids` (every process when nullopt: a tree of one rank shows
// that rank's calls) are folded in. A call's scope is the tree's first node, not a GPU one, whose
// path of names from ROOT is its scope_path ("" is ROOT). Calls that name a scope the tree lacks
// go under ROOT, and calls that validation refuses are left out; notes in the tree say so, and
// say when a time is the host's. Without any call, the tree as given. InvalidArgumentError for a
// tree whose shape is not valid (tree_shape.h).
absl::StatusOr<v1::Tree> AddCollectiveNodes(v1::Tree tree, const v1::Collectives& collectives,
                                            const std::optional<std::set<int64_t>>& shown_pids);

// AddCollectiveNodes for `tree`, `session`'s over all its processes or (`rank` not "") those of
// that RANK: the calls of the same processes are shown.
absl::StatusOr<v1::Tree> AddSessionCollectiveNodes(const v1::Session& session,
                                                   const std::string& rank, v1::Tree tree,
                                                   const v1::Collectives& collectives);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_COLLECTIVE_TREE_H_
