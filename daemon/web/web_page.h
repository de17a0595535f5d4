// protond --web-listen: the web page served by the daemon itself to users who sign in with a
// token of --tokens (docs/web.md), over HTTPS with --listen's certificate and key; plain HTTP
// only on a loopback address with --insecure, as for the TCP API.
#ifndef PROTOND_DAEMON_WEB_WEB_PAGE_H_
#define PROTOND_DAEMON_WEB_WEB_PAGE_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/server/tcp_server.h"
#include "daemon/server/token_file.h"
#include "daemon/service/protond_service.h"
#include "daemon/web/page_router.h"
#include "page_server/http_server.h"

namespace protond::web {

struct WebPageOptions {
  std::string listen;   // --web-listen HOST:PORT; port 0 takes a free one
  std::string web_dir;  // --web-dir; "": page_server::DefaultWebDir()
};

// Whether --web-listen and --web-dir go with the TCP API's flags: both need --web-listen, which
// needs --listen (its tokens, certificate and key), and with --insecure a loopback address. The
// error names the flag.
absl::Status CheckWebPageOptions(const WebPageOptions& web, const server::TcpOptions& tcp);

class WebPage {
 public:
  // Checks the options and the page's directory, and serves `service`, which must outlive the
  // page, to the users of `tokens` (the TCP API's; nullptr without --tokens, refused).
  static absl::StatusOr<std::unique_ptr<WebPage>> Start(
      const WebPageOptions& web, const server::TcpOptions& tcp, service::ProtondService& service,
      std::shared_ptr<const server::TokenFile> tokens);
  int port() const { return server_->port(); }
  // Ends every sign-in (PageRouter::SignOutAll): protond read its tokens again.
  void SignOutAll() { router_->SignOutAll(); }

 private:
  WebPage() = default;

  std::unique_ptr<PageRouter> router_;
  // Last: stopped first, before what its threads use.
  std::unique_ptr<page_server::HttpServer> server_;
};

}  // namespace protond::web

#endif  // PROTOND_DAEMON_WEB_WEB_PAGE_H_
