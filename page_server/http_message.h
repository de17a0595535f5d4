// A request to the web page's server and its answer, as plain values: a router (protonctl ui's,
// protond's) maps one to the other without a socket, and the server (http_server.h) moves them
// over civetweb's.
#ifndef PROTOND_PAGE_SERVER_HTTP_MESSAGE_H_
#define PROTOND_PAGE_SERVER_HTTP_MESSAGE_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::page_server {

// Everything in it but peer_address comes from the browser (or whoever connects): untrusted.
struct Request {
  std::string method;         // "GET", ...
  std::string path;           // URL-decoded, without the query: "/api/tree"
  std::string query;          // raw, after '?': "session=7&metrics=time%2Fms"
  std::string cookie;         // the Cookie header, "" if none
  std::string authorization;  // the Authorization header, "" if none
  std::string body;           // a POST's form, "" otherwise (at most 4 KiB of it)
  std::string origin;         // the Origin header ("https://node01:8443"), "" if none
  std::string host;           // the Host header ("node01:8443"), "" if none
  // Not from the browser: the address its connection came from, as the server's sockets (and
  // the TLS front's, relayed_peers.h) know it, never from a header. What the sign-in throttle
  // counts by.
  std::string peer_address;
};

// Whether a request that changes something (a sign-in, a sign-out) comes from a page of this
// server: a browser sends Origin with every POST, and another site's page sends its own. Without
// Origin (curl, an old browser) it is taken as this server's: the cookie's SameSite=Strict still
// keeps another site's requests from carrying it.
bool FromThisOrigin(const Request& request);

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

// `answer`, or its error as JsonError with HttpStatusOf's status: how every /api/ call ends.
Response AnswerOrJsonError(absl::StatusOr<Response> answer);

// Whether `path` is the API's ("/api/...") rather than the page's.
bool IsApi(absl::string_view path);

// An error answer: for the API JSON (JsonError), for the page text.
Response ErrorFor(const Request& request, int status, absl::string_view message);

// Where a page's form may be sent: nowhere (the page has none), or back to its server (protond's
// sign-in form).
enum class FormAction { kNone, kSelf };

// The headers every answer carries (docs/web.md, "Files"): no caching, no type sniffing, no
// Referer, and the page's Content-Security-Policy with frame-ancestors 'none'.
void AddCommonHeaders(Response& response, FormAction form_action = FormAction::kNone);

// The HTTP status for a failed call to protond (or a bad parameter): 400 for INVALID_ARGUMENT
// and FAILED_PRECONDITION, 404 for NOT_FOUND and PERMISSION_DENIED (another user's session
// looks like none), 502 for the rest (protond did not answer, or failed).
int HttpStatusOf(const absl::Status& status);

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_HTTP_MESSAGE_H_
