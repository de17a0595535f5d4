// `protonctl [--hosts LIST] tree --job JOB`: a job's ranks read from their nodes' protond (each
// node's newest session of the job, rank by rank) and shown as one tree with the per-rank spread
// of a metric (cli/viewer/job_tree.h). Nodes are read in parallel; one that fails is named, and
// the others still show.
#ifndef PROTOND_CLI_FAN_OUT_JOB_TREE_COMMAND_H_
#define PROTOND_CLI_FAN_OUT_JOB_TREE_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client-lib/cpp/client.h"

namespace protond::cli {

struct JobTreeArgs {
  std::string job;
  std::string metrics;  // -m: the first metric is spread; empty: the default (metric_spec.h)
  int depth = 100;      // -d
};

struct JobTreeResult {
  std::string text;                      // a heading, then the tree; "" when no node answered
  std::vector<std::string> unreachable;  // "node02:7878: why", one per node that failed
};

// Fails only when no node has the job; each node's own failure goes to `unreachable`.
absl::StatusOr<JobTreeResult> RenderJobTreeCommand(const std::vector<client::Endpoint>& nodes,
                                                   const JobTreeArgs& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_FAN_OUT_JOB_TREE_COMMAND_H_
