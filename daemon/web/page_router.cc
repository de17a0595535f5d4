#include "daemon/web/page_router.h"

#include <cstdio>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/net/host_name.h"
#include "page_server/job_api.h"
#include "page_server/page_files.h"
#include "page_server/profile_api.h"
#include "view/json/profile_table_json.h"

namespace protond::web {
namespace {

using page_server::ErrorFor;
using page_server::Request;
using page_server::Response;

// `text` as HTML text: no markup from it.
std::string HtmlText(absl::string_view text) {
  return absl::StrReplaceAll(text,
                             {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

// The form posts the token in the request's body: never in an address, so never in a history,
// a Referer or a log. No script and no style: the page's Content-Security-Policy holds.
Response SignInForm(int status, absl::string_view note) {
  return {status,
          "text/html; charset=utf-8",
          absl::StrCat("<!doctype html>\n<html><head><meta charset=\"utf-8\">"
                       "<title>protond: sign in</title></head>\n<body><h1>protond</h1>\n",
                       note.empty() ? "" : absl::StrCat("<p>", HtmlText(note), "</p>\n"),
                       "<form method=\"post\" action=\"/sign-in\">\n"
                       "<label>Token <input type=\"password\" name=\"token\" "
                       "autocomplete=\"current-password\" required></label>\n"
                       "<button type=\"submit\">Sign in</button>\n</form></body></html>\n"),
          {}};
}

// The cookie's attributes: script cannot read it, it goes over TLS only and never with a request
// that another site started.
std::string Cookie(absl::string_view value, absl::string_view lifetime) {
  return absl::StrCat(kCookieName, "=", value, "; HttpOnly; Secure; SameSite=Strict; Path=/",
                      lifetime);
}

Response SeeTheStart(std::string cookie) {
  return {303, "text/plain; charset=utf-8", "see /\n", {{"Location", "/"}, {"Set-Cookie", cookie}}};
}

// A signed-in user as the service knows a caller over TCP with the same token.
service::Peer PeerOf(const page_server::SignedInUser& user) {
  service::Peer peer;
  peer.uid = user.uid;
  peer.remote = true;
  peer.jobs = user.jobs;
  return peer;
}

// protond's log line when a failure closes the throttle: once per closing, naming the address.
void LogThrottleClosed(page_server::SignInThrottle::Closed closed, const std::string& caller) {
  using Closed = page_server::SignInThrottle::Closed;
  if (closed == Closed::kCaller) {
    std::fprintf(stderr,
                 "protond: the page's sign-in had %d wrong tokens within a minute from %s: its "
                 "sign-ins wait until a minute has passed since the first\n",
                 page_server::SignInThrottle::kMaxFailuresPerCaller, caller.c_str());
  } else if (closed == Closed::kEveryone) {
    std::fprintf(stderr,
                 "protond: the page's sign-in had %d wrong tokens within a minute from all "
                 "addresses together (the last from %s): every sign-in waits until a minute has "
                 "passed since the first\n",
                 page_server::SignInThrottle::kMaxFailuresOverall, caller.c_str());
  }
}

}  // namespace

Response PageRouter::Answer(const Request& request, absl::Time now) {
  Response response;
  auto form_action = page_server::FormAction::kNone;
  const std::optional<page_server::SignedInUser> user =
      sign_ins_.Find(page_server::CookieValue(request.cookie, kCookieName), now);
  if (request.method == "POST" && !page_server::FromThisOrigin(request)) {
    response = ErrorFor(request, 403,
                        absl::StrCat("refused: a ", request.path, " from another site's page (",
                                     request.origin, ")"));
  } else if (request.method == "POST" && request.path == "/sign-in") {
    response = SignIn(request, now);
    form_action = page_server::FormAction::kSelf;
  } else if (request.method == "POST" && request.path == "/sign-out") {
    response = SignOut(request);
  } else if (request.method != "GET") {
    response =
        ErrorFor(request, 405, absl::StrCat("not served: ", request.method, " ", request.path));
    response.headers.emplace_back("Allow", "GET, POST");
  } else if (!user.has_value() && request.path == "/") {
    response = SignInForm(200, "");
    form_action = page_server::FormAction::kSelf;
  } else if (!user.has_value()) {
    response = ErrorFor(request, 401, "not signed in: sign in at / with your token");
  } else {
    response = AnswerSignedIn(request, PeerOf(*user));
  }
  page_server::AddCommonHeaders(response, form_action);
  return response;
}

Response PageRouter::SignIn(const Request& request, absl::Time now) {
  if (const std::optional<absl::Duration> wait = throttle_.WaitBefore(request.peer_address, now)) {
    const int64_t seconds = absl::ToInt64Seconds(absl::Ceil(*wait, absl::Seconds(1)));
    Response response = SignInForm(
        429,
        absl::StrCat("too many wrong tokens in the last minute: try again in ", seconds, " s"));
    response.headers.emplace_back("Retry-After", absl::StrCat(seconds));
    return response;
  }
  absl::StatusOr<std::map<std::string, std::string>> form = page_server::ParseQuery(request.body);
  const std::string token = form.ok() && form->contains("token") ? form->at("token") : "";
  // The table's checks, as for a call over TCP; its messages never hold the token.
  absl::StatusOr<server::TokenTable::Grant> grant =
      tokens_->GrantFor(absl::StrCat("Bearer ", token), now);
  if (!grant.ok()) {
    LogThrottleClosed(throttle_.Failed(request.peer_address, now), request.peer_address);
    return SignInForm(401, grant.status().message());
  }
  page_server::SignedInUser user;
  user.uid = grant->peer.uid;
  user.jobs = grant->peer.jobs;
  absl::StatusOr<std::string> key = sign_ins_.SignIn(user, grant->expires, now);
  if (!key.ok()) return SignInForm(503, key.status().message());
  std::string lifetime;
  if (grant->expires != absl::InfiniteFuture()) {
    lifetime = absl::StrCat("; Max-Age=", absl::ToInt64Seconds(grant->expires - now));
  }
  return SeeTheStart(Cookie(*key, lifetime));
}

Response PageRouter::SignOut(const Request& request) {
  sign_ins_.SignOut(page_server::CookieValue(request.cookie, kCookieName));
  return SeeTheStart(Cookie("", "; Max-Age=0"));
}

Response PageRouter::AnswerSignedIn(const Request& request, const service::Peer& peer) {
  if (!page_server::IsApi(request.path)) return page_server::AnswerPageFile(web_dir_, request);
  // What this server offers the page beyond protonctl ui's: a sign-out (the page's button).
  if (request.path == "/api/page") {
    return {200, "application/json", view::DumpJson({{"sign_out", "/sign-out"}}), {}};
  }
  absl::StatusOr<std::map<std::string, std::string>> parameters =
      page_server::ParseQuery(request.query);
  if (!parameters.ok()) return page_server::JsonError(400, parameters.status().message());
  const std::unique_ptr<page_server::ProfileSource> source = source_for_(peer);
  if (request.path == "/api/job") {
    // This node's ranks, named by this machine's name as protonctl names a remote node's.
    const std::string host = net::LocalHostName();
    const page_server::JobNode node{source.get(), host, host};
    return page_server::AnswerOrJsonError(page_server::AnswerJobApi({&node, 1}, *parameters));
  }
  return page_server::AnswerOrJsonError(
      page_server::AnswerProfileApi(*source, request.path, *parameters));
}

}  // namespace protond::web
