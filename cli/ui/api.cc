#include "cli/ui/api.h"

#include "cli/client_profile_source.h"
#include "page_server/job_api.h"
#include "page_server/profile_api.h"

namespace protond::cli::ui {
namespace {

absl::StatusOr<page_server::Response> Answer(client::Client& client, absl::string_view path,
                                             const page_server::ApiParameters& parameters) {
  if (path == "/api/job") {
    return page_server::AnswerJobApi(ClientJobNodes({&client}).nodes(), parameters);
  }
  ClientProfileSource source(client);
  return page_server::AnswerProfileApi(source, path, parameters);
}

}  // namespace

page_server::Response AnswerApi(client::Client& client, absl::string_view path,
                                const std::map<std::string, std::string>& parameters) {
  return page_server::AnswerOrJsonError(Answer(client, path, parameters));
}

}  // namespace protond::cli::ui
