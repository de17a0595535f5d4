#include "cli/ui/api.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cli/fan_out/job_tree_command.h"
#include "cli/job_command.h"
#include "cli/ui/client_profile_source.h"
#include "common/status/status_macros.h"
#include "page_server/profile_api.h"
#include "view/json/profile_table_json.h"
#include "view/tree/profile_view.h"

namespace protond::cli::ui {
namespace {

using page_server::ApiParameters;
using page_server::BadParameter;
using page_server::ProtoJson;
using page_server::Required;
using page_server::Response;
using page_server::ViewOptionsOf;
using Parameters = ApiParameters;

// `protonctl job --job JOB`'s report where it can be made (the job's sessions were recorded
// with --data trace); otherwise why not, in protonctl job's words.
absl::Status AddVerdict(client::Client& client, const std::string& job, nlohmann::json& json) {
  absl::StatusOr<JobReport> report = RunJobCommand({&client}, {.job = job});
  json["verdict"] = nullptr;
  json["no_verdict"] = nullptr;
  if (report.ok()) {
    json["verdict"] = std::move(report->text);
  } else if (absl::IsFailedPrecondition(report.status())) {
    json["no_verdict"] = report.status().message();
  } else {
    return report.status();
  }
  return absl::OkStatus();
}

// `protonctl tree --job JOB` over this node's ranks (cli/fan_out/job_tree_command.h), with what
// it read and the verdict.
absl::StatusOr<Response> Job(client::Client& client, const Parameters& parameters) {
  ASSIGN_OR_RETURN(const std::string job, Required(parameters, "job"));
  ASSIGN_OR_RETURN(const view::ViewOptions options, ViewOptionsOf(parameters));
  absl::StatusOr<JobTreeTable> read = ReadJobTreeTable(
      {client.endpoint()},
      {.job = job, .metrics = options.metrics, .kernel_names = options.kernel_names});
  if (absl::IsInvalidArgument(read.status())) {
    return BadParameter("metrics", read.status().message());
  }
  if (!read.ok()) return read.status();
  nlohmann::json json = view::ProfileTableJson(read->table);
  json["job"] = job;
  json["metric"] = read->metric.header;
  json["ranks"] = nlohmann::json::array();
  for (const view::RankTree& rank : read->ranks) {
    json["ranks"].push_back(
        {{"rank", rank.rank}, {"host", rank.host}, {"session", absl::StrCat(rank.session_id)}});
  }
  json["sessions"] = nlohmann::json::array();
  for (const v1::Session& session : read->sessions) {
    ASSIGN_OR_RETURN(nlohmann::json one, ProtoJson(session));
    json["sessions"].push_back(std::move(one));
  }
  json["problems"] = read->unreachable;
  RETURN_IF_ERROR(AddVerdict(client, job, json));
  return Response{200, "application/json", view::DumpJson(json), {}};
}

absl::StatusOr<Response> Answer(client::Client& client, absl::string_view path,
                                const Parameters& parameters) {
  if (path == "/api/job") return Job(client, parameters);
  ClientProfileSource source(client);
  return page_server::AnswerProfileApi(source, path, parameters);
}

}  // namespace

Response AnswerApi(client::Client& client, absl::string_view path, const Parameters& parameters) {
  return page_server::AnswerOrJsonError(Answer(client, path, parameters));
}

}  // namespace protond::cli::ui
