// A request to `protonctl ui` and its answer, as plain values: the router (router.h) maps one to
// the other without a socket, and the server (http_server.h) moves them over civetweb's.
#ifndef PROTOND_CLI_UI_HTTP_MESSAGE_H_
#define PROTOND_CLI_UI_HTTP_MESSAGE_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::cli::ui {

// Everything in it comes from the browser (or whoever connects): untrusted.
struct Request {
  std::string method;         // "GET", ...
  std::string path;           // URL-decoded, without the query: "/api/tree"
  std::string query;          // raw, after '?': "session=7&metrics=time%2Fms"
  std::string cookie;         // the Cookie header, "" if none
  std::string authorization;  // the Authorization header, "" if none
};

struct Response {
  int status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type and -Length
};

// The query's parameters, each name and value %-decoded ('+' is a space); a name given twice
// keeps its first value. InvalidArgumentError for a bad %-escape, naming it.
absl::StatusOr<std::map<std::string, std::string>> ParseQuery(absl::string_view query);

// The value of cookie `name` in a Cookie header ("a=1; protond_ui=T"), "" if absent.
std::string CookieValue(absl::string_view cookie_header, absl::string_view name);

// {"error": message} with `status`, as every /api/ error is answered (docs/web.md).
Response JsonError(int status, absl::string_view message);

// The HTTP status for a failed call to protond (or a bad parameter): 400 for INVALID_ARGUMENT
// and FAILED_PRECONDITION, 404 for NOT_FOUND and PERMISSION_DENIED (another user's session
// looks like none), 502 for the rest (protond did not answer, or failed).
int HttpStatusOf(const absl::Status& status);

}  // namespace protond::cli::ui

#endif  // PROTOND_CLI_UI_HTTP_MESSAGE_H_
