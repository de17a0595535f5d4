// The /api/ answers of docs/web.md (sessions, tree, diff, export, history, job, top, stalls), read
// from protond through the user's own client::Client. Called from several of civetweb's threads
// at once: Client's calls share its gRPC channel and stubs, which are thread-safe, and keep no
// other state.
#ifndef PROTOND_CLI_UI_API_H_
#define PROTOND_CLI_UI_API_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cli/profile_commands.h"
#include "client-lib/cpp/client.h"
#include "nlohmann/json.hpp"
#include "page_server/http_message.h"
#include "protond.pb.h"

namespace protond::cli::ui {

// The answer to GET `path` ("/api/tree") with the query's `parameters`: JSON, errors included
// (400 names the parameter; 404 for another user's session or none; 502 when protond failed),
// except /api/export's download. An unknown path is 404. Sessions, tree and diff are
// page_server/profile_api.h's, read through the client.
page_server::Response AnswerApi(client::Client& client, absl::string_view path,
                                const std::map<std::string, std::string>& parameters);

// /api/top's and /api/stalls' parameters (session, limit, names) as `protonctl top`'s arguments,
// read by its ParseTopArgs: a bad one is InvalidArgumentError naming the parameter.
absl::StatusOr<TopArgs> TopArgsOf(const std::map<std::string, std::string>& parameters,
                                  bool stalls);

// /api/top's answer but "session": the kernels `protonctl top` lists with `args`
// (view::BuildTopKernels, as it does) and the tree's devices, with their peaks.
absl::StatusOr<nlohmann::json> TopJson(const v1::Tree& tree, const TopArgs& args);

// /api/stalls' answer but "session": the lines `protonctl top --stalls` lists, and with
// `instruction_tree` (the same session's tree with instructions, for sass=1) each line's SASS
// instructions as `protonctl tree -f sass` shows them, and that tree's notes.
absl::StatusOr<nlohmann::json> StallsJson(const v1::Tree& tree, const v1::Tree* instruction_tree,
                                          const TopArgs& args);

}  // namespace protond::cli::ui

#endif  // PROTOND_CLI_UI_API_H_
