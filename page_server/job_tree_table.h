// A job's ranks read from their nodes' protond (each node's newest session of the job, rank by
// rank) and joined into one table with the per-rank spread of a metric (view/tree/job_tree.h):
// the one pipeline behind `protonctl tree --job` and both pages' /api/job, so they show the same
// numbers. Nodes are read in parallel; one that fails is named, and the others still show.
#ifndef PROTOND_PAGE_SERVER_JOB_TREE_TABLE_H_
#define PROTOND_PAGE_SERVER_JOB_TREE_TABLE_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "page_server/job_node.h"
#include "protond.pb.h"
#include "view/tree/frame_names.h"
#include "view/tree/job_tree.h"
#include "view/tree/profile_view.h"

namespace protond::page_server {

struct JobTreeQuery {
  std::string job;
  std::string metrics;  // -m: the first metric is spread; empty: the default (metric_spec.h)
  view::KernelNames kernel_names = view::KernelNames::kShort;  // --full-names, --mangled
};

struct JobTreeTable {
  std::vector<v1::Session> sessions;     // each answering node's session of the job, as read
  std::vector<view::RankTree> ranks;     // in the order their trees were joined
  view::MetricColumn metric;             // -m's first metric, the one spread over the ranks
  view::ProfileTable table;              // view::SpreadColumns(metric) over the ranks' frames
  std::vector<std::string> unreachable;  // "node02:7878: why", one per node that failed
};

// Fails only when no node gave a rank: with a bad -m's InvalidArgumentError as it is, else
// naming each node's failure (NotFound when every node has no session of the job). Each node's
// source is called from a thread of its own.
absl::StatusOr<JobTreeTable> ReadJobTreeTable(std::span<const JobNode> nodes,
                                              const JobTreeQuery& query);

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_JOB_TREE_TABLE_H_
