#include "cli/ui/router.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli/ui/api.h"
#include "cli/ui/page_files.h"
#include "cli/ui/token.h"

namespace protond::cli::ui {
namespace {

bool IsApi(absl::string_view path) { return absl::StartsWith(path, "/api/"); }

// For the API, JSON (docs/web.md); for a page file, text.
Response Error(const Request& request, int status, absl::string_view message) {
  if (IsApi(request.path)) return JsonError(status, message);
  return {status, "text/plain; charset=utf-8", absl::StrCat(message, "\n"), {}};
}

// On every answer: nothing is cached (the API's data changes, and holds the user's profiles), no
// guessing of types (a download of untrusted names never becomes a page), and no Referer.
void AddCommonHeaders(Response& response) {
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  // The page's own policy (web/static/index.html) again, from the server, so that it also covers
  // what is not the page (an export, an error) and cannot be dropped by an edited index.html;
  // frame-ancestors (no framing, against clickjacking) works only as a header.
  response.headers.emplace_back("Content-Security-Policy",
                                "default-src 'self'; script-src 'self'; style-src 'self'; "
                                "img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                                "form-action 'none'; frame-ancestors 'none'");
}

Response AnswerSignedIn(const Request& request, const std::string& web_dir,
                        client::Client& client) {
  if (IsApi(request.path)) {
    absl::StatusOr<std::map<std::string, std::string>> parameters = ParseQuery(request.query);
    if (!parameters.ok()) return JsonError(400, parameters.status().message());
    return AnswerApi(client, request.path, *parameters);
  }
  absl::StatusOr<PageFile> file = ReadPageFile(web_dir, request.path);
  if (!file.ok())
    return Error(request, absl::IsNotFound(file.status()) ? 404 : 500, file.status().message());
  return {200, file->content_type, std::move(file->contents), {}};
}

}  // namespace

bool Router::SignedIn(const Request& request) const {
  absl::string_view bearer = request.authorization;
  if (absl::ConsumePrefix(&bearer, "Bearer ")) return SameToken(bearer, token_);
  return SameToken(CookieValue(request.cookie, kCookieName), token_);
}

Response Router::SignIn(const std::string& offered_untrusted) const {
  if (!SameToken(offered_untrusted, token_)) {
    return {401, "text/plain; charset=utf-8", "wrong token\n", {}};
  }
  return {303,
          "text/plain; charset=utf-8",
          "signed in\n",
          {{"Location", "/"},
           {"Set-Cookie",
            absl::StrCat(kCookieName, "=", token_, "; HttpOnly; SameSite=Strict; Path=/")}}};
}

Response Router::Answer(const Request& request) const {
  Response response;
  absl::StatusOr<std::map<std::string, std::string>> query = ParseQuery(request.query);
  if (request.method != "GET") {
    response = Error(request, 405, absl::StrCat("only GET is served, not ", request.method));
    response.headers.emplace_back("Allow", "GET");
  } else if (request.path == "/" && query.ok() && query->contains("token")) {
    response = SignIn(query->at("token"));
  } else if (!SignedIn(request)) {
    response = Error(request, 401, "not signed in: open the address protonctl ui printed");
  } else {
    response = AnswerSignedIn(request, web_dir_, client_);
  }
  AddCommonHeaders(response);
  return response;
}

}  // namespace protond::cli::ui
