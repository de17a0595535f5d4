// `protonctl [--hosts LIST] tree --job JOB`: a job's ranks read from their nodes' protond and
// shown as one tree with the per-rank spread of a metric (page_server/job_tree_table.h reads and
// joins them, as for the web page's /api/job). One node that fails is named, and the others still
// show.
#ifndef PROTOND_CLI_FAN_OUT_JOB_TREE_COMMAND_H_
#define PROTOND_CLI_FAN_OUT_JOB_TREE_COMMAND_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "page_server/job_node.h"
#include "page_server/job_tree_table.h"

namespace protond::cli {

struct JobTreeArgs {
  page_server::JobTreeQuery query;  // --job, -m, --full-names, --mangled
  int depth = 100;                  // -d
};

struct JobTreeResult {
  std::string text;                      // a heading, then the tree; "" when no node answered
  std::vector<std::string> unreachable;  // "node02:7878: why", one per node that failed
};

// ReadJobTreeTable's table as `tree --job` prints it: a heading that names the ranks, the tree
// to -d.
absl::StatusOr<JobTreeResult> RenderJobTreeCommand(std::span<const page_server::JobNode> nodes,
                                                   const JobTreeArgs& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_FAN_OUT_JOB_TREE_COMMAND_H_
