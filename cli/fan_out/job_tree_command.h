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
#include "view/tree/job_tree.h"
#include "view/tree/profile_view.h"

namespace protond::cli {

struct JobTreeArgs {
  std::string job;
  std::string metrics;  // -m: the first metric is spread; empty: the default (metric_spec.h)
  int depth = 100;      // -d
  view::KernelNames kernel_names = view::KernelNames::kShort;  // --full-names, --mangled
};

// A job's ranks read from `nodes`, before they are laid out as text: the one pipeline behind
// `tree --job` and the web page's /api/job (cli/ui/api.cc), so both show the same numbers.
struct JobTreeTable {
  std::vector<v1::Session> sessions;     // each answering node's session of the job, as read
  std::vector<view::RankTree> ranks;     // in the order their trees were joined
  view::MetricColumn metric;             // -m's first metric, the one spread over the ranks
  view::ProfileTable table;              // view::SpreadColumns(metric) over the ranks' frames
  std::vector<std::string> unreachable;  // "node02:7878: why", one per node that failed
};

// Fails only when no node gave a rank: with a bad -m's InvalidArgumentError as it is, else
// naming each node's failure (NotFound when every node has no session of the job).
absl::StatusOr<JobTreeTable> ReadJobTreeTable(const std::vector<client::Endpoint>& nodes,
                                              const JobTreeArgs& args);

struct JobTreeResult {
  std::string text;                      // a heading, then the tree; "" when no node answered
  std::vector<std::string> unreachable;  // "node02:7878: why", one per node that failed
};

// ReadJobTreeTable's table as `tree --job` prints it: a heading that names the ranks, the tree
// to -d.
absl::StatusOr<JobTreeResult> RenderJobTreeCommand(const std::vector<client::Endpoint>& nodes,
                                                   const JobTreeArgs& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_FAN_OUT_JOB_TREE_COMMAND_H_
