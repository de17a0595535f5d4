// `protonctl job SESSION|--job JOB`: the verdict on a job's collectives (which rank the others
// wait for) and a per-collective summary, from trace sessions' NCCL kernels matched in launch
// order until the NCCL profiler plugin gives collectives of their own (docs/jobs.md).
#ifndef PROTOND_CLI_JOB_COMMAND_H_
#define PROTOND_CLI_JOB_COMMAND_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client-lib/cpp/client.h"
#include "view/jobs/kernel_order.h"

namespace protond::cli {

struct JobArgs {
  uint64_t session_id = 0;  // SESSION; 0 with --job
  std::string job;          // --job JOB: every session of the job's processes
};

// Exactly one of SESSION and --job JOB.
absl::StatusOr<JobArgs> ParseJobArgs(const std::vector<std::string>& args);

// The report on `sessions` (trace sessions, their traces read): a heading, the verdict, the
// per-collective table, then the problems. Pure; `job` names the job in the heading ("" for a
// session's).
std::string RenderJobReport(std::span<const view::TracedSession> sessions, const std::string& job);

// Reads the session (or the job's sessions) and their traces from the daemon behind `client`,
// and renders the report. A session recorded without --data trace is refused with what to do.
absl::StatusOr<std::string> RunJobCommand(client::Client& client, const JobArgs& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_JOB_COMMAND_H_
