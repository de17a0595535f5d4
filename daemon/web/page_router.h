// What protond --web-listen answers (docs/web.md, "protond serves the page"): a sign-in form, the
// sign-in with a token of --tokens (checked as the TCP API checks it), a cookie holding a random
// key, the page's files, and the API as the signed-in token's user. Thread-safe: civetweb's
// threads share one PageRouter.
#ifndef PROTOND_DAEMON_WEB_PAGE_ROUTER_H_
#define PROTOND_DAEMON_WEB_PAGE_ROUTER_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "daemon/server/token_table.h"
#include "daemon/service/protond_service.h"
#include "page_server/http_message.h"
#include "page_server/profile_source.h"
#include "page_server/sign_in_sessions.h"

namespace protond::web {

inline constexpr char kCookieName[] = "protond_page";

// The data a signed-in caller's API calls read (ServiceProfileSource in protond; a fake in tests).
using ProfileSourceFor =
    std::function<std::unique_ptr<page_server::ProfileSource>(const service::Peer& peer)>;

class PageRouter {
 public:
  // `tokens` must outlive the router.
  PageRouter(std::string web_dir, const server::TokenTable& tokens, ProfileSourceFor source_for)
      : web_dir_(std::move(web_dir)), tokens_(tokens), source_for_(std::move(source_for)) {}

  // GET / without a live cookie: the sign-in form. POST /sign-in (form field `token`): 303 to /
  // with the cookie, or 401 with the form again. POST /sign-out: forgets the cookie's key, 303 to
  // /. Any other GET needs a live cookie (else 401; JSON for /api/): /api/... as the token's user,
  // anything else a file of the page. Other methods: 405.
  page_server::Response Answer(const page_server::Request& request, absl::Time now);

 private:
  page_server::Response SignIn(const page_server::Request& request, absl::Time now);
  page_server::Response SignOut(const page_server::Request& request);
  page_server::Response AnswerSignedIn(const page_server::Request& request,
                                       const service::Peer& peer);

  const std::string web_dir_;
  const server::TokenTable& tokens_;
  const ProfileSourceFor source_for_;
  page_server::SignInSessions sign_ins_;
};

}  // namespace protond::web

#endif  // PROTOND_DAEMON_WEB_PAGE_ROUTER_H_
