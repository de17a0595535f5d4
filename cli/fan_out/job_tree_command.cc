#include "cli/fan_out/job_tree_command.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "view/render/tree_view.h"

namespace protond::cli {
namespace {

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

absl::StatusOr<JobTreeResult> RenderJobTreeCommand(std::span<const page_server::JobNode> nodes,
                                                   const JobTreeArgs& args) {
  ASSIGN_OR_RETURN(const page_server::JobTreeTable read,
                   page_server::ReadJobTreeTable(nodes, args.query));
  const view::TreeValues& shown = read.table.shown;
  JobTreeResult result;
  result.text = absl::StrCat(Heading(args.query.job, read.ranks, read.metric),
                             view::RenderTreeValues(shown.tree, shown.shape, read.table.columns,
                                                    shown.values, args.depth, /*colour=*/false));
  result.unreachable = read.unreachable;
  return result;
}

}  // namespace protond::cli
