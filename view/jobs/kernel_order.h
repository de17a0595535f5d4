// Collective records without the NCCL profiler plugin: each rank's NCCL kernels, read from a
// trace session (v1::Trace), matched in launch order. The n-th NCCL collective kernel a process
// ran stands in for its n-th call on one stand-in communicator, which is right when every rank
// launches the same collectives in the same order (DDP, FSDP); docs/jobs.md, "Using it today".
// Pure; no I/O.
#ifndef PROTOND_VIEW_JOBS_KERNEL_ORDER_H_
#define PROTOND_VIEW_JOBS_KERNEL_ORDER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protond.pb.h"
#include "view/jobs/collective.h"
#include "view/jobs/nccl_kernel_name.h"

namespace protond::view {

// The stand-in communicator of records built from launch order: all of a job's NCCL collective
// kernels count as one communicator, every process with them as one rank.
inline constexpr uint64_t kLaunchOrderCommId = 0;

// One session's trace, read from the protond at `host` ("" for this node's); the sessions of one
// host share its clock (CUPTI's, shifted to CLOCK_MONOTONIC by the shim).
struct TracedSession {
  const v1::Session* session = nullptr;
  const v1::Trace* trace = nullptr;
  std::string host;
};

struct LaunchOrderRecords {
  // One per NCCL collective kernel of the common prefix, by process then launch order; seq is the
  // kernel's index among its process's NCCL collective kernels.
  std::vector<CollectiveRecordUntrusted> records;
  int nranks = 0;  // processes with NCCL collective kernels, and a rank
  // What kept this from being a faithful stand-in, one line each: processes with different
  // counts (only the common prefix is matched), kernels left out, processes without a rank.
  std::vector<std::string> problems;
};

// The records of every process of `sessions` that ran NCCL collective kernels. A process's rank
// is its RANK, else its LOCAL_RANK; a process with neither as a number is left out (a problem).
// Bytes are unknown (0): no bandwidth follows. `job` goes into each record.
LaunchOrderRecords CollectivesFromKernelOrder(std::span<const TracedSession> sessions,
                                              std::string_view job);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_KERNEL_ORDER_H_
