#include "page_server/job_api.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "page_server/job_report.h"
#include "page_server/job_tree_table.h"
#include "view/json/profile_table_json.h"

namespace protond::page_server {
namespace {

// `protonctl job --job JOB`'s report where it can be made (the job's sessions were recorded
// with --data trace, or have the plugin's calls); otherwise why not, in protonctl job's words.
// "running": a session of the job still runs, on any node: the report's sessions (every one of
// the job's) or, without a report, the table's (each node's newest).
absl::Status AddVerdict(std::span<const JobNode> nodes, const JobTreeTable& read,
                        const std::string& job, nlohmann::json& json) {
  absl::StatusOr<JobReport> report = ReadJobReport(nodes, job);
  json["verdict"] = nullptr;
  json["no_verdict"] = nullptr;
  bool running = false;
  for (const v1::Session& session : read.sessions) {
    running = running || session.state() == v1::Session::RUNNING;
  }
  if (report.ok()) {
    json["verdict"] = std::move(report->text);
    running = running || report->recording;
  } else if (absl::IsFailedPrecondition(report.status())) {
    json["no_verdict"] = report.status().message();
  } else {
    return report.status();
  }
  json["running"] = running;
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> RanksJson(const JobTreeTable& read) {
  nlohmann::json json = view::ProfileTableJson(read.table);
  json["metric"] = read.metric.header;
  json["ranks"] = nlohmann::json::array();
  for (const view::RankTree& rank : read.ranks) {
    json["ranks"].push_back(
        {{"rank", rank.rank}, {"host", rank.host}, {"session", absl::StrCat(rank.session_id)}});
  }
  json["sessions"] = nlohmann::json::array();
  for (const v1::Session& session : read.sessions) {
    ASSIGN_OR_RETURN(nlohmann::json one, ProtoJson(session));
    json["sessions"].push_back(std::move(one));
  }
  json["problems"] = read.unreachable;
  return json;
}

}  // namespace

absl::StatusOr<Response> AnswerJobApi(std::span<const JobNode> nodes,
                                      const ApiParameters& parameters) {
  ASSIGN_OR_RETURN(const std::string job, Required(parameters, "job"));
  ASSIGN_OR_RETURN(const view::ViewOptions options, ViewOptionsOf(parameters));
  absl::StatusOr<JobTreeTable> read = ReadJobTreeTable(
      nodes, {.job = job, .metrics = options.metrics, .kernel_names = options.kernel_names});
  if (absl::IsInvalidArgument(read.status())) {
    return BadParameter("metrics", read.status().message());
  }
  if (!read.ok()) return read.status();
  ASSIGN_OR_RETURN(nlohmann::json json, RanksJson(*read));
  json["job"] = job;
  RETURN_IF_ERROR(AddVerdict(nodes, *read, job, json));
  return Response{200, "application/json", view::DumpJson(json), {}};
}

}  // namespace protond::page_server
