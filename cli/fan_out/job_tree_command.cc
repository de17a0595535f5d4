#include "cli/fan_out/job_tree_command.h"

#include <algorithm>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/collective_calls.h"
#include "common/status/status_macros.h"
#include "view/history/window_selection.h"
#include "view/jobs/collective_tree.h"
#include "view/render/metric_values.h"
#include "view/render/tree_view.h"
#include "view/tree/job_tree.h"

namespace protond::cli {
namespace {

// The newest session of `job` on the node behind `client`.
absl::StatusOr<v1::Session> JobSession(client::Client& client, const std::string& job) {
  ASSIGN_OR_RETURN(const v1::ListSessionsResponse sessions, client.ListSessions());
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

absl::StatusOr<NodeRanks> ReadRanks(const client::Endpoint& node, const JobTreeArgs& args) {
  client::Client client(node);
  NodeRanks out;
  ASSIGN_OR_RETURN(out.session, JobSession(client, args.job));
  // A process without a RANK (a launcher such as torchrun, or nccl_kernels_workload's parent) is
  // no rank: read as rank "" it would be the whole session, every rank's work once more. Only a
  // session where no process has one is read whole, as one rank.
  std::set<std::string> ranks;
  for (const v1::SessionProcess& process : out.session.processes()) {
    if (!process.job().rank().empty()) ranks.insert(process.job().rank());
  }
  if (ranks.empty()) ranks.insert("");
  ASSIGN_OR_RETURN(const v1::Collectives collectives, ReadCollectives(client, out.session.id()));
  for (const std::string& rank : ranks) {
    view::RankTree tree;
    tree.host = node.Name();
    tree.rank = rank;
    tree.session_id = out.session.id();
    ASSIGN_OR_RETURN(v1::Tree rank_tree, client.GetTree(out.session.id(), rank));
    ASSIGN_OR_RETURN(tree.values.tree, view::AddSessionCollectiveNodes(
                                           out.session, rank, std::move(rank_tree), collectives));
    ASSIGN_OR_RETURN(tree.values.shape, view::CheckTreeShape(tree.values.tree));
    ASSIGN_OR_RETURN(const std::vector<view::MetricColumn> columns,
                     view::ParseMetricSpec(args.metrics, tree.values.tree));
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

std::string Heading(const std::string& job, const std::vector<view::RankTree>& ranks,
                    const view::MetricColumn& metric) {
  std::vector<std::string> where;
  for (const view::RankTree& rank : ranks) {
    where.push_back(absl::StrCat(rank.rank.empty() ? "?" : rank.rank, "@",
                                 rank.host.empty() ? "local" : rank.host));
  }
  return absl::StrCat("job ", job, ": ", ranks.size(), ranks.size() == 1 ? " rank (" : " ranks (",
                      absl::StrJoin(where, ", "), "); ", metric.header, " per rank\n");
}

}  // namespace

absl::StatusOr<JobTreeTable> ReadJobTreeTable(const std::vector<client::Endpoint>& nodes,
                                              const JobTreeArgs& args) {
  std::vector<absl::StatusOr<NodeRanks>> read(nodes.size(), NodeRanks());
  std::vector<std::thread> readers;
  for (size_t i = 0; i < nodes.size(); ++i) {
    readers.emplace_back([&, i] { read[i] = ReadRanks(nodes[i], args); });
  }
  for (std::thread& reader : readers) reader.join();

  JobTreeTable out;
  std::vector<absl::Status> failures;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!read[i].ok()) {
      failures.push_back(read[i].status());
      out.unreachable.push_back(absl::StrCat(nodes[i].Name(), ": ", read[i].status().message()));
      continue;
    }
    out.metric = read[i]->metric;
    out.sessions.push_back(std::move(read[i]->session));
    for (view::RankTree& rank : read[i]->ranks) out.ranks.push_back(std::move(rank));
  }
  if (out.ranks.empty()) return NoRanks(args.job, failures, out.unreachable);
  out.table.columns = view::SpreadColumns(out.metric);
  ASSIGN_OR_RETURN(out.table.shown, view::SpreadOverRanks(out.ranks));
  NameFrames(args.kernel_names, out.table);
  return out;
}

absl::StatusOr<JobTreeResult> RenderJobTreeCommand(const std::vector<client::Endpoint>& nodes,
                                                   const JobTreeArgs& args) {
  ASSIGN_OR_RETURN(const JobTreeTable read, ReadJobTreeTable(nodes, args));
  const view::TreeValues& shown = read.table.shown;
  JobTreeResult result;
  result.text = absl::StrCat(Heading(args.job, read.ranks, read.metric),
                             view::RenderTreeValues(shown.tree, shown.shape, read.table.columns,
                                                    shown.values, args.depth, /*colour=*/false));
  result.unreachable = read.unreachable;
  return result;
}

}  // namespace protond::cli
