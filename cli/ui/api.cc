#include "cli/ui/api.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cli/client_profile_source.h"
#include "page_server/job_api.h"
#include "page_server/profile_api.h"

namespace protond::cli::ui {
namespace {

absl::StatusOr<page_server::Response> Answer(const std::vector<client::Client*>& nodes,
                                             absl::string_view path,
                                             const page_server::ApiParameters& parameters) {
  if (path == "/api/job") {
    return page_server::AnswerJobApi(ClientJobNodes(nodes).nodes(), parameters);
  }
  if (nodes.size() > 1) {
    return absl::NotFoundError(
        absl::StrCat(path,
                     " is not served by protonctl --hosts ... ui, which serves the Job page only "
                     "(#/job/JOB, every node's ranks): use protonctl --host NODE ui for a node's "
                     "sessions"));
  }
  ClientProfileSource source(*nodes.front());
  return page_server::AnswerProfileApi(source, path, parameters);
}

}  // namespace

page_server::Response AnswerApi(const std::vector<client::Client*>& nodes, absl::string_view path,
                                const std::map<std::string, std::string>& parameters) {
  return page_server::AnswerOrJsonError(Answer(nodes, path, parameters));
}

}  // namespace protond::cli::ui
