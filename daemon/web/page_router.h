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
#include "daemon/server/token_file.h"
#include "daemon/service/protond_service.h"
#include "page_server/http_message.h"
#include "page_server/profile_source.h"
#include "page_server/sign_in_sessions.h"
#include "page_server/sign_in_throttle.h"

namespace protond::web {

inline constexpr char kCookieName[] = "protond_page";

// The data a signed-in caller's API calls read (ServiceProfileSource in protond; a fake in tests).
using ProfileSourceFor =
    std::function<std::unique_ptr<page_server::ProfileSource>(const service::Peer& peer)>;

class PageRouter {
 public:
  PageRouter(std::string web_dir, std::shared_ptr<const server::TokenFile> tokens,
             ProfileSourceFor source_for)
      : web_dir_(std::move(web_dir)),
        tokens_(std::move(tokens)),
        source_for_(std::move(source_for)) {}

  // GET / without a live cookie: the sign-in form. POST /sign-in (form field `token`): 303 to /
  // with the cookie, or 401 with the form again (429 while the throttle is closed to the
  // request's peer_address: page_server/sign_in_throttle.h). POST /sign-out: forgets the cookie's
  // key, 303 to /. A POST from another site's page (its Origin) is 403. Any other GET needs a live
  // cookie (else 401; JSON for /api/): /api/... as the token's user, anything else a file of the
  // page. Other methods: 405.
  page_server::Response Answer(const page_server::Request& request, absl::Time now);

  // Ends every sign-in: protond read its tokens again, and a key does not say whose token it
  // was, so a removed token's browsers must sign in again (and fail).
  void SignOutAll() { sign_ins_.SignOutAll(); }

 private:
  page_server::Response SignIn(const page_server::Request& request, absl::Time now);
  page_server::Response SignOut(const page_server::Request& request);
  page_server::Response AnswerSignedIn(const page_server::Request& request,
                                       const service::Peer& peer);

  const std::string web_dir_;
  const std::shared_ptr<const server::TokenFile> tokens_;
  const ProfileSourceFor source_for_;
  page_server::SignInSessions sign_ins_;
  page_server::SignInThrottle throttle_;
};

}  // namespace protond::web

#endif  // PROTOND_DAEMON_WEB_PAGE_ROUTER_H_
