#include "daemon/web/web_page.h"

#include "absl/time/clock.h"
#include "common/status/status_macros.h"
#include "daemon/web/service_profile_source.h"
#include "page_server/page_files.h"

namespace protond::web {

absl::Status CheckWebPageOptions(const WebPageOptions& web, const server::TcpOptions& tcp) {
  if (web.listen.empty()) {
    if (web.web_dir.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError("--web-dir needs --web-listen");
  }
  if (tcp.listen.empty()) {
    return absl::InvalidArgumentError(
        "--web-listen needs --listen: the page takes its tokens, certificate and key from it");
  }
  if (tcp.insecure && !server::IsLoopbackAddress(web.listen)) {
    return absl::InvalidArgumentError(
        "--web-listen " + web.listen +
        " with --insecure must be a loopback address: plain HTTP would carry tokens and cookies "
        "in the clear (use --tls-cert and --tls-key)");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<WebPage>> WebPage::Start(
    const WebPageOptions& web, const server::TcpOptions& tcp, service::ProtondService& service,
    std::shared_ptr<const server::TokenFile> tokens) {
  RETURN_IF_ERROR(CheckWebPageOptions(web, tcp));
  std::string web_dir = web.web_dir;
  if (web_dir.empty()) {
    ASSIGN_OR_RETURN(web_dir, page_server::DefaultWebDir());
  }
  RETURN_IF_ERROR(page_server::CheckPageDirectory(web_dir));
  if (tokens == nullptr) return absl::InvalidArgumentError("--web-listen needs --tokens FILE");
  std::unique_ptr<WebPage> page(new WebPage());
  page->router_ = std::make_unique<PageRouter>(
      web_dir, std::move(tokens), [&service](const service::Peer& peer) {
        return std::make_unique<ServiceProfileSource>(service, peer);
      });
  page_server::HttpServerOptions options;
  options.listen = web.listen;
  if (!tcp.insecure) {
    options.tls_cert_path = tcp.tls_cert_path;
    options.tls_key_path = tcp.tls_key_path;
  }
  PageRouter* router = page->router_.get();
  ASSIGN_OR_RETURN(page->server_, page_server::HttpServer::Start(
                                      options, [router](const page_server::Request& request) {
                                        return router->Answer(request, absl::Now());
                                      }));
  return page;
}

}  // namespace protond::web
