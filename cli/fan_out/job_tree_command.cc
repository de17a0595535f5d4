#include "cli/fan_out/job_tree_command.h"

#include <algorithm>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "view/render/metric_values.h"
#include "view/render/tree_view.h"
#include "view/tree/job_tree.h"

namespace protond::cli {
namespace {

// The job a process belongs to, as protond names it (daemon/store/store.h JobRow::name).
const std::string& JobOfProcess(const v1::Job& job) {
  return job.slurm_job_id().empty() ? job.pod() : job.slurm_job_id();
}

// The newest session of `job` on the node behind `client`.
absl::StatusOr<v1::Session> JobSession(client::Client& client, const std::string& job) {
  ASSIGN_OR_RETURN(const v1::ListSessionsResponse sessions, client.ListSessions());
  const v1::Session* newest = nullptr;
  for (const v1::Session& session : sessions.sessions()) {
    if (IsSessionOfJob(session, job) && (newest == nullptr || session.id() > newest->id())) {
      newest = &session;
    }
  }
  if (newest == nullptr) {
    return absl::NotFoundError(absl::StrCat("no session of job ", job, " here"));
  }
  return *newest;
}

// The node's ranks of the job, each with the first metric of `metrics` computed on its tree.
absl::StatusOr<std::vector<view::RankTree>> ReadRanks(const client::Endpoint& node,
                                                      const JobTreeArgs& args,
                                                      view::MetricColumn* metric) {
  client::Client client(node);
  ASSIGN_OR_RETURN(const v1::Session session, JobSession(client, args.job));
  std::set<std::string> ranks;
  for (const v1::SessionProcess& process : session.processes()) ranks.insert(process.job().rank());
  if (ranks.empty()) ranks.insert("");
  std::vector<view::RankTree> out;
  for (const std::string& rank : ranks) {
    view::RankTree tree;
    tree.host = node.Name();
    tree.rank = rank;
    ASSIGN_OR_RETURN(tree.values.tree, client.GetTree(session.id(), rank));
    ASSIGN_OR_RETURN(tree.values.shape, view::CheckTreeShape(tree.values.tree));
    ASSIGN_OR_RETURN(const std::vector<view::MetricColumn> columns,
                     view::ParseMetricSpec(args.metrics, tree.values.tree));
    *metric = columns.front();
    tree.values.values = {view::ComputeColumn(tree.values.tree, tree.values.shape, *metric)};
    out.push_back(std::move(tree));
  }
  return out;
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

bool IsSessionOfJob(const v1::Session& session, const std::string& job) {
  if (job.empty()) return false;
  if (session.job() == job) return true;
  return std::any_of(
      session.processes().begin(), session.processes().end(),
      [&](const v1::SessionProcess& process) { return JobOfProcess(process.job()) == job; });
}

absl::StatusOr<JobTreeResult> RenderJobTreeCommand(const std::vector<client::Endpoint>& nodes,
                                                   const JobTreeArgs& args) {
  std::vector<absl::StatusOr<std::vector<view::RankTree>>> read(nodes.size(),
                                                                std::vector<view::RankTree>());
  std::vector<view::MetricColumn> metrics(nodes.size());
  std::vector<std::thread> readers;
  for (size_t i = 0; i < nodes.size(); ++i) {
    readers.emplace_back([&, i] { read[i] = ReadRanks(nodes[i], args, &metrics[i]); });
  }
  for (std::thread& reader : readers) reader.join();

  JobTreeResult result;
  std::vector<view::RankTree> ranks;
  const view::MetricColumn* metric = nullptr;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!read[i].ok()) {
      result.unreachable.push_back(absl::StrCat(nodes[i].Name(), ": ", read[i].status().message()));
      continue;
    }
    metric = &metrics[i];
    for (view::RankTree& rank : *read[i]) ranks.push_back(std::move(rank));
  }
  if (ranks.empty()) {
    return absl::NotFoundError(absl::StrCat("no node has a session of job ", args.job, ": ",
                                            absl::StrJoin(result.unreachable, "; ")));
  }
  ASSIGN_OR_RETURN(view::TreeValues spread, view::SpreadOverRanks(ranks));
  view::RenameFrames(view::FrameFormat::kFull, args.kernel_names, &spread.tree);
  result.text =
      absl::StrCat(Heading(args.job, ranks, *metric),
                   view::RenderTreeValues(spread.tree, spread.shape, view::SpreadColumns(*metric),
                                          spread.values, args.depth, /*colour=*/false));
  return result;
}

}  // namespace protond::cli
