// What `protonctl ui` answers to each request (docs/web.md): sign-in with the token, the page's
// files, the API. A pure mapping from Request to Response, apart from the API's calls to protond
// and the reads of the page's files; const, so civetweb's threads share one Router.
#ifndef PROTOND_CLI_UI_ROUTER_H_
#define PROTOND_CLI_UI_ROUTER_H_

#include <string>
#include <utility>
#include <vector>

#include "client-lib/cpp/client.h"
#include "page_server/http_message.h"

namespace protond::cli::ui {

using page_server::Request;
using page_server::Response;

inline constexpr char kCookieName[] = "protond_ui";

class Router {
 public:
  // The clients of `nodes` (one, or --hosts' each: api.h) must outlive the Router.
  Router(std::string token, std::string web_dir, std::vector<client::Client*> nodes)
      : token_(std::move(token)), web_dir_(std::move(web_dir)), nodes_(std::move(nodes)) {}

  // GET only (405 otherwise). `/?token=T` with the right T sets the cookie and answers 303 to
  // `/`; any other request needs the cookie or `Authorization: Bearer T` (else 401). Then
  // `/api/...` is api.h's, anything else a file of the page (404 if there is none).
  Response Answer(const Request& request) const;

 private:
  bool SignedIn(const Request& request) const;
  Response SignIn(const std::string& offered_untrusted) const;

  const std::string token_;
  const std::string web_dir_;
  const std::vector<client::Client*> nodes_;
};

}  // namespace protond::cli::ui

#endif  // PROTOND_CLI_UI_ROUTER_H_
