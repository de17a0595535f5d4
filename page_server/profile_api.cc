#include "page_server/profile_api.h"

#include <google/protobuf/util/json_util.h>

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status/status_macros.h"
#include "common/text/count.h"
#include "common/text/session_id.h"
#include "page_server/history_json.h"
#include "page_server/window_range.h"
#include "view/export/export_file.h"
#include "view/jobs/collective_tree.h"
#include "view/json/profile_table_json.h"
#include "view/json/top_json.h"
#include "view/tree/share_shift.h"
#include "view/tree/top_stalls.h"

namespace protond::page_server {
namespace {

// The options come from the page; the trees from protond. An invalid argument is the metrics'
// (the other options the page cannot set), and says so.
absl::StatusOr<nlohmann::json> TableJson(const v1::Tree& tree, const view::ViewOptions& options,
                                         const v1::Tree* base) {
  absl::StatusOr<view::ProfileTable> table = view::BuildProfileTable(tree, options, base);
  if (absl::IsInvalidArgument(table.status())) {
    return BadParameter("metrics", table.status().message());
  }
  if (!table.ok()) return table.status();
  nlohmann::json json = view::ProfileTableJson(*table);
  nlohmann::json devices = nlohmann::json::array();
  for (const v1::Device& device : tree.devices()) {
    ASSIGN_OR_RETURN(nlohmann::json one, ProtoJson(device));
    devices.push_back(std::move(one));
  }
  json["devices"] = std::move(devices);
  return json;
}

// The answer of a session's tree, top or stalls: `json` with the session's. The session is asked
// for before its tree is read, so another user's or none is a 404 whatever the tree would say.
absl::StatusOr<Response> WithSession(const v1::Session& session, nlohmann::json json) {
  ASSIGN_OR_RETURN(json["session"], ProtoJson(session));
  return Response{200, "application/json", view::DumpJson(json), {}};
}

absl::StatusOr<Response> Sessions(ProfileSource& source) {
  ASSIGN_OR_RETURN(const v1::ListSessionsResponse listed, source.ListSessions());
  nlohmann::json sessions = nlohmann::json::array();
  for (const v1::Session& session : listed.sessions()) {
    ASSIGN_OR_RETURN(nlohmann::json one, ProtoJson(session));
    sessions.push_back(std::move(one));
  }
  return Response{200, "application/json", view::DumpJson({{"sessions", sessions}}), {}};
}

absl::StatusOr<Response> Tree(ProfileSource& source, const ApiParameters& parameters) {
  ASSIGN_OR_RETURN(const uint64_t id, SessionParameter(parameters, "session"));
  ASSIGN_OR_RETURN(const view::ViewOptions options, ViewOptionsOf(parameters));
  ASSIGN_OR_RETURN(const v1::Session session, source.GetSession(id));
  const std::string rank = Optional(parameters, "rank");
  ASSIGN_OR_RETURN(v1::Tree tree, source.GetTree(id, rank, /*instructions=*/false));
  ASSIGN_OR_RETURN(const v1::Collectives calls, source.GetCollectives(id));
  // Under their scopes, as `protonctl tree` shows them (docs/jobs.md, "In the tree").
  ASSIGN_OR_RETURN(tree, view::AddSessionCollectiveNodes(session, rank, std::move(tree), calls));
  ASSIGN_OR_RETURN(nlohmann::json json, TableJson(tree, options, nullptr));
  return WithSession(session, std::move(json));
}

absl::StatusOr<Response> Diff(ProfileSource& source, const ApiParameters& parameters) {
  ASSIGN_OR_RETURN(const uint64_t a, SessionParameter(parameters, "a"));
  ASSIGN_OR_RETURN(const uint64_t b, SessionParameter(parameters, "b"));
  ASSIGN_OR_RETURN(const view::ViewOptions options, ViewOptionsOf(parameters));
  ASSIGN_OR_RETURN(const v1::Session session, source.GetSession(a));
  ASSIGN_OR_RETURN(const v1::Session base_session, source.GetSession(b));
  ASSIGN_OR_RETURN(const v1::Tree tree, source.GetTree(a, "", /*instructions=*/false));
  ASSIGN_OR_RETURN(const v1::Tree base, source.GetTree(b, "", /*instructions=*/false));
  ASSIGN_OR_RETURN(nlohmann::json json, TableJson(tree, options, &base));
  ASSIGN_OR_RETURN(json["session"], ProtoJson(session));
  ASSIGN_OR_RETURN(json["base"], ProtoJson(base_session));
  return Response{200, "application/json", view::DumpJson(json), {}};
}

absl::StatusOr<Response> Top(ProfileSource& source, const ApiParameters& parameters) {
  ASSIGN_OR_RETURN(const TopParameters top, TopParametersOf(parameters));
  ASSIGN_OR_RETURN(const v1::Session session, source.GetSession(top.session));
  ASSIGN_OR_RETURN(const v1::Tree tree, source.GetTree(top.session, "", /*instructions=*/false));
  ASSIGN_OR_RETURN(nlohmann::json json, TopJson(tree, top));
  return WithSession(session, std::move(json));
}

absl::StatusOr<bool> SassParameter(const ApiParameters& parameters) {
  const std::string sass = Optional(parameters, "sass");
  if (sass.empty() || sass == "0") return false;
  if (sass == "1") return true;
  return BadParameter("sass", absl::StrCat("1 or 0, not '", sass, "'"));
}

absl::StatusOr<Response> Stalls(ProfileSource& source, const ApiParameters& parameters) {
  ASSIGN_OR_RETURN(const TopParameters top, TopParametersOf(parameters));
  ASSIGN_OR_RETURN(const bool sass, SassParameter(parameters));
  ASSIGN_OR_RETURN(const v1::Session session, source.GetSession(top.session));
  ASSIGN_OR_RETURN(const v1::Tree tree, source.GetTree(top.session, "", /*instructions=*/false));
  std::optional<v1::Tree> instruction_tree;
  if (sass) {
    ASSIGN_OR_RETURN(instruction_tree, source.GetTree(top.session, "", /*instructions=*/true));
  }
  ASSIGN_OR_RETURN(nlohmann::json json,
                   StallsJson(tree, instruction_tree ? &*instruction_tree : nullptr, top.limit));
  return WithSession(session, std::move(json));
}

// `protonctl history`'s windows, one ListHistory call, summed up as it does. A bad parameter is
// 400; anything after, protond's failure.
absl::StatusOr<Response> History(ProfileSource& source, const ApiParameters& parameters) {
  const absl::Time now = absl::Now();
  ASSIGN_OR_RETURN(const view::WindowQuery query, WindowQueryOf(parameters, now));
  const absl::StatusOr<v1::ListHistoryResponse> listed =
      source.ListHistory(view::HistoryRequestOf(query));
  if (!listed.ok()) return ListHistoryFailed(listed.status());
  const nlohmann::json json = HistoryJson(listed->windows(), listed->total_windows(), now);
  return Response{200, "application/json", view::DumpJson(json), {}};
}

// The base range of a range diff: the same windows' selection (pid, job or command) over
// base_since and base_until, as `tree --since A --diff --since B` takes it.
absl::StatusOr<view::WindowQuery> BaseQueryOf(const ApiParameters& parameters, absl::Time now) {
  ApiParameters base = parameters;
  base.erase("since");
  base.erase("until");
  for (const char* bound : {"since", "until"}) {
    auto found = parameters.find(absl::StrCat("base_", bound));
    if (found != parameters.end()) base[bound] = found->second;
  }
  if (!base.contains("since") && !base.contains("until")) {
    return BadParameter("base_since", "the earlier range needs base_since or base_until");
  }
  absl::StatusOr<view::WindowQuery> query = WindowQueryOf(base, now);
  if (!query.ok()) return BadParameter("base", query.status().message());
  return query;
}

// `protonctl tree [--pid P|--job J|--command RE] --since A [--until B] --diff --since C
// [--until D]`: each range's windows merged, the first minus the second as /api/diff's table,
// with both ranges' lines and the shares of GPU time that moved by more than 5 points.
absl::StatusOr<Response> RangeDiff(ProfileSource& source, const ApiParameters& parameters) {
  const absl::Time now = absl::Now();
  ASSIGN_OR_RETURN(const view::WindowQuery query, WindowQueryOf(parameters, now));
  ASSIGN_OR_RETURN(const view::WindowQuery base_query, BaseQueryOf(parameters, now));
  ASSIGN_OR_RETURN(const view::ViewOptions options, ViewOptionsOf(parameters));
  ASSIGN_OR_RETURN(const WindowRange range, LoadWindowRange(source, query));
  ASSIGN_OR_RETURN(const WindowRange base, LoadWindowRange(source, base_query));
  ASSIGN_OR_RETURN(nlohmann::json json, TableJson(range.tree, options, &base.tree));
  ASSIGN_OR_RETURN(const view::ShareShifts shifts,
                   view::FindShareShifts(range.tree, base.tree, view::kDefaultShareThreshold));
  json["range"] = range.heading;
  json["base_range"] = base.heading;
  json["shifts"] =
      view::RenderShareShifts(shifts, view::kDefaultShareThreshold, options.kernel_names);
  return Response{200, "application/json", view::DumpJson(json), {}};
}

// `protonctl export ID --format F`'s bytes, read through the caller's source, as a download.
absl::StatusOr<Response> Export(ProfileSource& source, const ApiParameters& parameters) {
  ASSIGN_OR_RETURN(const uint64_t id, SessionParameter(parameters, "session"));
  ASSIGN_OR_RETURN(const std::string format_text, Required(parameters, "format"));
  const absl::StatusOr<view::ExportFormat> format = view::ParseExportFormat(format_text);
  if (!format.ok()) return BadParameter("format", format.status().message());
  ASSIGN_OR_RETURN(const v1::Session session, source.GetSession(id));
  const view::ExportReads reads =
      view::ExportReadsOf(*format, session.data() == v1::Session::TRACE);
  view::ExportInput input;
  if (reads.tree) {
    ASSIGN_OR_RETURN(input.tree, source.GetTree(id, "", /*instructions=*/false));
  }
  if (reads.trace) {
    ASSIGN_OR_RETURN(input.trace, source.GetTrace(id));
    input.has_trace = true;
  }
  input.has_session = reads.session;
  if (reads.session) input.session = session;
  ASSIGN_OR_RETURN(std::string contents,
                   view::RenderExport({.format = *format}, input, absl::StrCat("session ", id)));
  const std::string file = absl::StrCat("protond-", id, ".", view::ExportExtension(*format));
  return Response{200,
                  "application/octet-stream",
                  std::move(contents),
                  {{"Content-Disposition", absl::StrCat("attachment; filename=\"", file, "\"")}}};
}

}  // namespace

absl::StatusOr<Response> AnswerProfileApi(ProfileSource& source, absl::string_view path,
                                          const ApiParameters& parameters) {
  if (path == "/api/sessions") return Sessions(source);
  if (path == "/api/tree") return Tree(source, parameters);
  if (path == "/api/diff") return Diff(source, parameters);
  if (path == "/api/top") return Top(source, parameters);
  if (path == "/api/stalls") return Stalls(source, parameters);
  if (path == "/api/history") return History(source, parameters);
  if (path == "/api/export") return Export(source, parameters);
  if (path == "/api/range-diff") return RangeDiff(source, parameters);
  return absl::NotFoundError(absl::StrCat("no such API: ", path));
}

absl::Status BadParameter(absl::string_view name, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(name, ": ", message));
}

absl::StatusOr<std::string> Required(const ApiParameters& parameters, const std::string& name) {
  auto found = parameters.find(name);
  if (found == parameters.end() || found->second.empty()) {
    return BadParameter(name, "the parameter is missing");
  }
  return found->second;
}

std::string Optional(const ApiParameters& parameters, const std::string& name) {
  auto found = parameters.find(name);
  return found == parameters.end() ? "" : found->second;
}

absl::StatusOr<uint64_t> SessionParameter(const ApiParameters& parameters,
                                          const std::string& name) {
  ASSIGN_OR_RETURN(const std::string text, Required(parameters, name));
  absl::StatusOr<uint64_t> id = text::ParseSessionId(text);
  if (!id.ok()) return BadParameter(name, id.status().message());
  return id;
}

absl::StatusOr<view::ViewOptions> ViewOptionsOf(const ApiParameters& parameters) {
  view::ViewOptions options;
  options.metrics = Optional(parameters, "metrics");
  const std::string names = Optional(parameters, "names");
  if (names == "full") {
    options.kernel_names = view::KernelNames::kFull;
  } else if (!names.empty() && names != "short") {
    return BadParameter("names", absl::StrCat("short or full, not '", names, "'"));
  }
  return options;
}

absl::StatusOr<TopParameters> TopParametersOf(const ApiParameters& parameters) {
  TopParameters top;
  ASSIGN_OR_RETURN(top.session, SessionParameter(parameters, "session"));
  ASSIGN_OR_RETURN(const view::ViewOptions view, ViewOptionsOf(parameters));
  top.kernel_names = view.kernel_names;
  if (const std::string limit = Optional(parameters, "limit"); !limit.empty()) {
    absl::StatusOr<int> count = text::ParseCount("-n", limit);
    if (!count.ok()) return BadParameter("limit", count.status().message());
    top.limit = *count;
  }
  return top;
}

absl::StatusOr<nlohmann::json> TopJson(const v1::Tree& tree, const TopParameters& top) {
  ASSIGN_OR_RETURN(const view::TopKernels kernels,
                   view::BuildTopKernels(tree, top.limit, top.kernel_names));
  nlohmann::json json = view::TopKernelsJson(kernels);
  json.update(view::DevicesJson(tree.devices()));
  return json;
}

absl::StatusOr<nlohmann::json> StallsJson(const v1::Tree& tree, const v1::Tree* instruction_tree,
                                          int limit) {
  const view::TopStalls top = view::BuildTopStalls(tree, limit);
  if (instruction_tree == nullptr) return view::TopStallsJson(top, nullptr);
  ASSIGN_OR_RETURN(const auto instructions, view::InstructionsByLine(*instruction_tree));
  nlohmann::json json = view::TopStallsJson(top, &instructions);
  json["instruction_notes"] =
      std::vector<std::string>(instruction_tree->notes().begin(), instruction_tree->notes().end());
  return json;
}

absl::StatusOr<nlohmann::json> ProtoJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string text;
  const auto printed = google::protobuf::util::MessageToJsonString(message, &text, options);
  if (!printed.ok()) {
    return absl::InternalError(
        absl::StrCat("cannot write a ", message.GetTypeName(), " as JSON: ", printed.ToString()));
  }
  return nlohmann::json::parse(text);
}

}  // namespace protond::page_server
