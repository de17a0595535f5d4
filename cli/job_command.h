// `protonctl job SESSION|--job JOB`: the verdict on a job's collectives (which rank the others
// wait for) and a per-collective summary, from the collective calls that the shim's NCCL profiler
// plugin recorded in any session, or without them from trace sessions' NCCL kernels matched in
// launch order (docs/jobs.md).
#ifndef PROTOND_CLI_JOB_COMMAND_H_
#define PROTOND_CLI_JOB_COMMAND_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client-lib/cpp/client.h"
#include "page_server/job_report.h"

namespace protond::cli {

struct JobArgs {
  uint64_t session_id = 0;  // SESSION; 0 with --job
  std::string job;          // --job JOB: every session of the job's processes
  bool follow = false;      // --follow: redrawn while a session of it runs
};

// How often `job --follow` redraws: each frame reads the sessions' traces again.
inline constexpr absl::Duration kJobFollowInterval = absl::Seconds(2);

// Exactly one of SESSION and --job JOB, and --follow.
absl::StatusOr<JobArgs> ParseJobArgs(const std::vector<std::string>& args);

// The report on the session (or the job's sessions) of the daemons of `nodes` (this node's, or
// each of --hosts'), as page_server/job_report.h reads and makes it. With several nodes, only
// --job names what to read.
absl::StatusOr<page_server::JobReport> RunJobCommand(const std::vector<client::Client*>& nodes,
                                                     const JobArgs& args);

// `tree --job JOB`'s last lines, after its tree: the lines of `job --job JOB`'s report over the
// same nodes that give the clock offsets and the verdict, as `job` prints them; where `job` cannot
// make a report (a tree session without the plugin's calls), "no verdict: " and why.
std::string RenderJobVerdict(const std::vector<client::Client*>& nodes, const std::string& job);

// --follow: the report every `interval` while a session of it runs, headed by what it follows
// ("job 4711, recording: redrawn every 2s, Ctrl-C leaves its sessions running"); then a last
// report of everything, headed "... stopped". A job's sessions (and the nodes' clocks) are read
// again for each report, so a session started later joins. FollowFrames (cli/follow.h) says when
// it ends.
absl::Status FollowJob(const std::vector<client::Client*>& nodes, const JobArgs& args,
                       absl::Duration interval, const std::function<bool()>& keep_going,
                       const std::function<void(const std::string& frame)>& show);

}  // namespace protond::cli

#endif  // PROTOND_CLI_JOB_COMMAND_H_
