#include "page_server/job_tree_table.h"

#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "view/history/window_selection.h"
#include "view/jobs/collective_tree.h"
#include "view/render/metric_values.h"

namespace protond::page_server {
namespace {

// The newest session of `job` that `source` lists.
absl::StatusOr<v1::Session> JobSession(ProfileSource& source, const std::string& job) {
  ASSIGN_OR_RETURN(const v1::ListSessionsResponse sessions, source.ListSessions());
  const v1::Session* newest = nullptr;
  for (const v1::Session& session : sessions.sessions()) {
    if (view::IsSessionOfJob(session, job) && (newest == nullptr || session.id() > newest->id())) {
      newest = &session;
    }
  }
  if (newest == nullptr) {
    return absl::NotFoundError(absl::StrCat("no session of job ", job, " here"));
  }
  return *newest;
}

// What one node gave of the job: its session and its ranks, each with the first metric of -m
// computed on its tree.
struct NodeRanks {
  v1::Session session;
  std::vector<view::RankTree> ranks;
  view::MetricColumn metric;
};

absl::StatusOr<NodeRanks> ReadRanks(const JobNode& node, const JobTreeQuery& query) {
  ProfileSource& source = *node.source;
  NodeRanks out;
  ASSIGN_OR_RETURN(out.session, JobSession(source, query.job));
  // A process without a RANK (a launcher such as torchrun, or nccl_kernels_workload's parent) is
  // no rank: read as rank "" it would be the whole session, every rank's work once more. Only a
  // session where no process has one is read whole, as one rank.
  std::set<std::string> ranks;
  for (const v1::SessionProcess& process : out.session.processes()) {
    if (!process.job().rank().empty()) ranks.insert(process.job().rank());
  }
  if (ranks.empty()) ranks.insert("");
  ASSIGN_OR_RETURN(const v1::Collectives collectives, source.GetCollectives(out.session.id()));
  for (const std::string& rank : ranks) {
    view::RankTree tree;
    tree.host = node.name;
    tree.rank = rank;
    tree.session_id = out.session.id();
    ASSIGN_OR_RETURN(v1::Tree rank_tree,
                     source.GetTree(out.session.id(), rank, /*instructions=*/false));
    ASSIGN_OR_RETURN(tree.values.tree, view::AddSessionCollectiveNodes(
                                           out.session, rank, std::move(rank_tree), collectives));
    ASSIGN_OR_RETURN(tree.values.shape, view::CheckTreeShape(tree.values.tree));
    ASSIGN_OR_RETURN(const std::vector<view::MetricColumn> columns,
                     view::ParseMetricSpec(query.metrics, tree.values.tree));
    out.metric = columns.front();
    tree.values.values = {view::ComputeColumn(tree.values.tree, tree.values.shape, out.metric)};
    out.ranks.push_back(std::move(tree));
  }
  return out;
}

// No node gave a rank: a bad -m is the request's fault and is said as it is; otherwise every
// node's failure is named, with the first one's code unless each simply has no session of it.
absl::Status NoRanks(const std::string& job, const std::vector<absl::Status>& failures,
                     const std::vector<std::string>& named) {
  absl::StatusCode code = absl::StatusCode::kNotFound;
  for (const absl::Status& failure : failures) {
    if (absl::IsInvalidArgument(failure)) return failure;
    if (code == absl::StatusCode::kNotFound) code = failure.code();
  }
  return absl::Status(
      code, absl::StrCat("no node has a session of job ", job, ": ", absl::StrJoin(named, "; ")));
}

// The spread's frames as shown (--full-names or short names) and each one's full name.
void NameFrames(view::KernelNames kernel_names, view::ProfileTable& table) {
  v1::Tree full = table.shown.tree;
  view::RenameFrames(view::FrameFormat::kFull,
                     kernel_names == view::KernelNames::kMangled ? view::KernelNames::kMangled
                                                                 : view::KernelNames::kFull,
                     &full);
  for (const v1::TreeNode& node : full.nodes()) table.full_names.push_back(node.name());
  view::RenameFrames(view::FrameFormat::kFull, kernel_names, &table.shown.tree);
}

}  // namespace

absl::StatusOr<JobTreeTable> ReadJobTreeTable(std::span<const JobNode> nodes,
                                              const JobTreeQuery& query) {
  std::vector<absl::StatusOr<NodeRanks>> read(nodes.size(), NodeRanks());
  std::vector<std::thread> readers;
  for (size_t i = 0; i < nodes.size(); ++i) {
    readers.emplace_back([&, i] { read[i] = ReadRanks(nodes[i], query); });
  }
  for (std::thread& reader : readers) reader.join();

  JobTreeTable out;
  std::vector<absl::Status> failures;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!read[i].ok()) {
      failures.push_back(read[i].status());
      out.unreachable.push_back(absl::StrCat(nodes[i].name, ": ", read[i].status().message()));
      continue;
    }
    out.metric = read[i]->metric;
    out.sessions.push_back(std::move(read[i]->session));
    for (view::RankTree& rank : read[i]->ranks) out.ranks.push_back(std::move(rank));
  }
  if (out.ranks.empty()) return NoRanks(query.job, failures, out.unreachable);
  out.table.columns = view::SpreadColumns(out.metric);
  ASSIGN_OR_RETURN(out.table.shown, view::SpreadOverRanks(out.ranks));
  NameFrames(query.kernel_names, out.table);
  return out;
}

}  // namespace protond::page_server
