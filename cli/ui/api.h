// The /api/ answers of docs/web.md (sessions, tree, diff, top, stalls, history, export, job), read
// from protond through the user's own client::Client: one node's, or (`protonctl --hosts LIST
// ui`) each node's of LIST for the Job page. Called from several of civetweb's threads
// at once: Client's calls share its gRPC channel and stubs, which are thread-safe, and keep no
// other state.
#ifndef PROTOND_CLI_UI_API_H_
#define PROTOND_CLI_UI_API_H_

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "client-lib/cpp/client.h"
#include "page_server/http_message.h"

namespace protond::cli::ui {

// The answer to GET `path` ("/api/tree") with the query's `parameters`: JSON, errors included
// (400 names the parameter; 404 for another user's session or none; 502 when protond failed),
// except /api/export's download. An unknown path is 404. Sessions, tree, diff, top,
// stalls and history are page_server/profile_api.h's, read through the client; job is
// page_server/job_api.h's over every one of `nodes`. With more than one node (--hosts) only
// /api/job is answered: any other path is a 404 that says so, since a session id is one node's.
page_server::Response AnswerApi(const std::vector<client::Client*>& nodes, absl::string_view path,
                                const std::map<std::string, std::string>& parameters);

}  // namespace protond::cli::ui

#endif  // PROTOND_CLI_UI_API_H_
