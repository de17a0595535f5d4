#include "cli/ui/router.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli/ui/api.h"
#include "page_server/page_files.h"
#include "page_server/token.h"

namespace protond::cli::ui {
namespace {

using page_server::ErrorFor;
using page_server::IsApi;
using page_server::SameToken;

Response AnswerSignedIn(const Request& request, const std::string& web_dir,
                        const std::vector<client::Client*>& nodes) {
  if (IsApi(request.path)) {
    absl::StatusOr<std::map<std::string, std::string>> parameters =
        page_server::ParseQuery(request.query);
    if (!parameters.ok()) return page_server::JsonError(400, parameters.status().message());
    return AnswerApi(nodes, request.path, *parameters);
  }
  return page_server::AnswerPageFile(web_dir, request);
}

}  // namespace

bool Router::SignedIn(const Request& request) const {
  absl::string_view bearer = request.authorization;
  if (absl::ConsumePrefix(&bearer, "Bearer ")) return SameToken(bearer, token_);
  return SameToken(page_server::CookieValue(request.cookie, kCookieName), token_);
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
  absl::StatusOr<std::map<std::string, std::string>> query = page_server::ParseQuery(request.query);
  if (request.method != "GET") {
    response = ErrorFor(request, 405, absl::StrCat("only GET is served, not ", request.method));
    response.headers.emplace_back("Allow", "GET");
  } else if (request.path == "/" && query.ok() && query->contains("token")) {
    response = SignIn(query->at("token"));
  } else if (!SignedIn(request)) {
    response = ErrorFor(request, 401, "not signed in: open the address protonctl ui printed");
  } else {
    response = AnswerSignedIn(request, web_dir_, nodes_);
  }
  page_server::AddCommonHeaders(response);
  return response;
}

}  // namespace protond::cli::ui
