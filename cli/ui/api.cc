#include "cli/ui/api.h"

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/export_command.h"
#include "cli/fan_out/job_tree_command.h"
#include "cli/history_command.h"
#include "cli/job_command.h"
#include "cli/profile_commands.h"
#include "cli/ui/client_profile_source.h"
#include "cli/ui/history_json.h"
#include "common/status/status_macros.h"
#include "page_server/profile_api.h"
#include "view/json/profile_table_json.h"
#include "view/json/top_json.h"
#include "view/tree/profile_view.h"

namespace protond::cli::ui {
namespace {

using page_server::ApiParameters;
using page_server::BadParameter;
using page_server::Optional;
using page_server::ProtoJson;
using page_server::Required;
using page_server::Response;
using page_server::SessionParameter;
using page_server::ViewOptionsOf;
using Parameters = ApiParameters;

// The bytes `protonctl export ID --format F` writes (cli/export_command.h), as a download.
absl::StatusOr<Response> Export(client::Client& client, const Parameters& parameters) {
  ASSIGN_OR_RETURN(const uint64_t id, SessionParameter(parameters, "session"));
  ASSIGN_OR_RETURN(const std::string format_text, Required(parameters, "format"));
  ExportArgs args;
  absl::StatusOr<ExportFormat> format = ParseExportFormat(format_text);
  if (!format.ok()) return BadParameter("format", format.status().message());
  args.format = *format;
  args.profile = absl::StrCat(id);
  ASSIGN_OR_RETURN(std::string contents, ExportContents(client, args, /*progress_out=*/nullptr));
  const std::string file = absl::StrCat("protond-", id, ".", ExportExtension(args.format));
  return Response{200,
                  "application/octet-stream",
                  std::move(contents),
                  {{"Content-Disposition", absl::StrCat("attachment; filename=\"", file, "\"")}}};
}

// The session's JSON, which /api/top and /api/stalls start with: a 404 for another user's session
// or none, before its tree is read.
absl::StatusOr<nlohmann::json> SessionJson(client::Client& client, const TopArgs& args) {
  ASSIGN_OR_RETURN(const uint64_t id, ParseSessionId(args.profile));
  ASSIGN_OR_RETURN(const v1::Session session, client.GetSession(id));
  return ProtoJson(session);
}

absl::StatusOr<Response> Top(client::Client& client, const Parameters& parameters) {
  ASSIGN_OR_RETURN(const TopArgs args, TopArgsOf(parameters, /*stalls=*/false));
  ASSIGN_OR_RETURN(nlohmann::json session, SessionJson(client, args));
  ASSIGN_OR_RETURN(const v1::Tree tree, LoadProfile(client, args.profile));
  ASSIGN_OR_RETURN(nlohmann::json json, TopJson(tree, args));
  json["session"] = std::move(session);
  return Response{200, "application/json", view::DumpJson(json), {}};
}

absl::StatusOr<bool> SassParameter(const Parameters& parameters) {
  const std::string sass = Optional(parameters, "sass");
  if (sass.empty() || sass == "0") return false;
  if (sass == "1") return true;
  return BadParameter("sass", absl::StrCat("1 or 0, not '", sass, "'"));
}

absl::StatusOr<Response> Stalls(client::Client& client, const Parameters& parameters) {
  ASSIGN_OR_RETURN(const TopArgs args, TopArgsOf(parameters, /*stalls=*/true));
  ASSIGN_OR_RETURN(const bool sass, SassParameter(parameters));
  ASSIGN_OR_RETURN(nlohmann::json session, SessionJson(client, args));
  ASSIGN_OR_RETURN(const v1::Tree tree, LoadProfile(client, args.profile));
  std::optional<v1::Tree> instruction_tree;
  if (sass) {
    ASSIGN_OR_RETURN(instruction_tree,
                     LoadProfile(client, args.profile, /*rank=*/"", /*instructions=*/true));
  }
  ASSIGN_OR_RETURN(nlohmann::json json,
                   StallsJson(tree, instruction_tree ? &*instruction_tree : nullptr, args));
  json["session"] = std::move(session);
  return Response{200, "application/json", view::DumpJson(json), {}};
}

// `protonctl history`'s windows (cli/history_command.h), one ListHistory call, summed up as it
// does. A bad parameter is 400; anything after, protond's failure.
absl::StatusOr<Response> History(client::Client& client, const Parameters& parameters) {
  const absl::Time now = absl::Now();
  ASSIGN_OR_RETURN(const HistoryArgs args, HistoryArgsOf(parameters, now));
  const absl::StatusOr<v1::ListHistoryResponse> listed = client.ListHistory(HistoryRequestOf(args));
  if (!listed.ok()) return ListHistoryFailed(listed.status());
  const nlohmann::json json = HistoryJson(listed->windows(), listed->total_windows(), now);
  return Response{200, "application/json", view::DumpJson(json), {}};
}

// `protonctl job --job JOB`'s report where it can be made (the job's sessions were recorded
// with --data trace); otherwise why not, in protonctl job's words.
absl::Status AddVerdict(client::Client& client, const std::string& job, nlohmann::json& json) {
  absl::StatusOr<std::string> report = RunJobCommand(client, {.job = job});
  json["verdict"] = nullptr;
  json["no_verdict"] = nullptr;
  if (report.ok()) {
    json["verdict"] = *std::move(report);
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
  if (path == "/api/export") return Export(client, parameters);
  if (path == "/api/history") return History(client, parameters);
  if (path == "/api/job") return Job(client, parameters);
  if (path == "/api/top") return Top(client, parameters);
  if (path == "/api/stalls") return Stalls(client, parameters);
  ClientProfileSource source(client);
  return page_server::AnswerProfileApi(source, path, parameters);
}

}  // namespace

absl::StatusOr<TopArgs> TopArgsOf(const Parameters& parameters, bool stalls) {
  ASSIGN_OR_RETURN(const uint64_t id, SessionParameter(parameters, "session"));
  ASSIGN_OR_RETURN(const view::ViewOptions view, ViewOptionsOf(parameters));
  std::vector<std::string> args = {absl::StrCat(id)};
  if (const std::string limit = Optional(parameters, "limit"); !limit.empty()) {
    args.insert(args.end(), {"-n", limit});
  }
  if (view.kernel_names == view::KernelNames::kFull) args.push_back("--full-names");
  if (stalls) args.push_back("--stalls");
  // The session, the names and the flags are well-formed here: what is left to refuse is -n's.
  absl::StatusOr<TopArgs> parsed = ParseTopArgs(args);
  if (!parsed.ok()) return BadParameter("limit", parsed.status().message());
  return parsed;
}

absl::StatusOr<nlohmann::json> TopJson(const v1::Tree& tree, const TopArgs& args) {
  ASSIGN_OR_RETURN(const view::TopKernels top,
                   view::BuildTopKernels(tree, args.limit, args.kernel_names));
  nlohmann::json json = view::TopKernelsJson(top);
  json.update(view::DevicesJson(tree.devices()));
  return json;
}

absl::StatusOr<nlohmann::json> StallsJson(const v1::Tree& tree, const v1::Tree* instruction_tree,
                                          const TopArgs& args) {
  const view::TopStalls top = view::BuildTopStalls(tree, args.limit);
  if (instruction_tree == nullptr) return view::TopStallsJson(top, nullptr);
  ASSIGN_OR_RETURN(const auto instructions, view::InstructionsByLine(*instruction_tree));
  nlohmann::json json = view::TopStallsJson(top, &instructions);
  json["instruction_notes"] =
      std::vector<std::string>(instruction_tree->notes().begin(), instruction_tree->notes().end());
  return json;
}

Response AnswerApi(client::Client& client, absl::string_view path, const Parameters& parameters) {
  return page_server::AnswerOrJsonError(Answer(client, path, parameters));
}

}  // namespace protond::cli::ui
