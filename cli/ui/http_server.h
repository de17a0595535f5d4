// `protonctl ui`'s HTTP server: civetweb on 127.0.0.1, each request answered by a Router from
// one of civetweb's worker threads (several at once).
#ifndef PROTOND_CLI_UI_HTTP_SERVER_H_
#define PROTOND_CLI_UI_HTTP_SERVER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "cli/ui/router.h"

struct mg_context;

namespace protond::cli::ui {

class HttpServer {
 public:
  // Listens on 127.0.0.1:`port` (0: a free port) and answers with `router`, which must outlive
  // the server. UnavailableError naming the port, and civetweb's reason, when it cannot listen
  // there.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(int port, const Router& router);
  // Stops listening and waits for the requests being answered.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }

 private:
  HttpServer(mg_context* context, int port) : context_(context), port_(port) {}

  mg_context* context_;
  int port_;
};

}  // namespace protond::cli::ui

#endif  // PROTOND_CLI_UI_HTTP_SERVER_H_
