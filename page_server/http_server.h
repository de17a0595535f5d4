// The web page's HTTP server, for `protonctl ui` and for protond --web-listen: civetweb, each
// request answered by a RequestAnswerer from one of civetweb's worker threads (several at once).
// With a certificate and key it speaks only HTTPS (through tls_front.h); without, only plain HTTP
// (the caller decides where that is allowed).
#ifndef PROTOND_PAGE_SERVER_HTTP_SERVER_H_
#define PROTOND_PAGE_SERVER_HTTP_SERVER_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "page_server/http_message.h"

struct mg_context;

namespace protond::page_server {

class TlsFront;

// Maps a request to its answer; called from several threads at once.
using RequestAnswerer = std::function<Response(const Request&)>;

struct HttpServerOptions {
  std::string listen = "127.0.0.1:0";  // HOST:PORT; port 0 takes a free one (see port())
  // PEM files; both or neither. With them: HTTPS only.
  std::string tls_cert_path;
  std::string tls_key_path;
};

class HttpServer {
 public:
  // Listens as `options` say and answers with `answerer`. UnavailableError naming the address,
  // and civetweb's reason, when it cannot listen there or read the certificate or key.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                           RequestAnswerer answerer);
  // Stops listening and waits for the requests being answered.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }

  // What civetweb's threads read (the answerer); defined in the .cc.
  struct Shared;

 private:
  HttpServer(mg_context* context, int port, std::unique_ptr<Shared> shared);
  // civetweb alone, plain HTTP at `listen`; `behind_tls_front`: its callers come through the
  // front, which says who they are (relayed_peers.h).
  static absl::StatusOr<std::unique_ptr<HttpServer>> StartPlain(const std::string& listen,
                                                                RequestAnswerer answerer,
                                                                bool behind_tls_front);

  mg_context* context_;
  int port_;
  // What civetweb's threads read: the answerer and the TLS front's peers.
  std::unique_ptr<Shared> shared_;
  std::unique_ptr<TlsFront> tls_front_;  // with TLS only
};

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_HTTP_SERVER_H_
