// `protonctl [--hosts LIST] tree --job JOB`: a job's ranks read from their nodes' protond (each
// node's newest session of the job, rank by rank) and shown as one tree with the per-rank spread
// of a metric (view/tree/job_tree.h). Nodes are read in parallel; one that fails is named, and
// the others still show.
#ifndef PROTOND_CLI_FAN_OUT_JOB_TREE_COMMAND_H_
#define PROTOND_CLI_FAN_OUT_JOB_TREE_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client-lib/cpp/client.h"
#include "protond.pb.h"
#include "view/tree/frame_names.h"

namespace protond::cli {

struct JobTreeArgs {
  std::string job;
  std::string metrics;  // -m: the first metric is spread; empty: the default (metric_spec.h)
  int depth = 100;      // -d
  view::KernelNames kernel_names = view::KernelNames::kShort;  // --full-names, --mangled
};

// Whether `session` is one of job `job`'s: started for it (start --job), or one of its processes
// carries the job id (SLURM_JOB_ID, else POD_NAME), as under `SLURM_JOB_ID=77 protonctl run`.
bool IsSessionOfJob(const v1::Session& session, const std::string& job);

struct JobTreeResult {
  std::string text;                      // a heading, then the tree; "" when no node answered
  std::vector<std::string> unreachable;  // "node02:7878: why", one per node that failed
};

// Fails only when no node has the job; each node's own failure goes to `unreachable`.
absl::StatusOr<JobTreeResult> RenderJobTreeCommand(const std::vector<client::Endpoint>& nodes,
                                                   const JobTreeArgs& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_FAN_OUT_JOB_TREE_COMMAND_H_
