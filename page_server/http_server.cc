#include "page_server/http_server.h"

#include <civetweb.h>

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "page_server/relayed_peers.h"
#include "page_server/tls_front.h"

namespace protond::page_server {

struct HttpServer::Shared {
  RequestAnswerer answerer;
  bool behind_tls_front = false;
  RelayedPeers relayed_peers;  // the TLS front's connections (with TLS only)
};

namespace {

// A POST body larger than this is cut there: the only form is the sign-in's, one token long.
constexpr size_t kMaxBodyBytes = 4096;

std::string Header(mg_connection* connection, const char* name) {
  const char* value = mg_get_header(connection, name);
  return value == nullptr ? "" : value;
}

std::string ReadBody(mg_connection* connection) {
  std::string body;
  char chunk[1024];
  int read = 0;
  while (body.size() < kMaxBodyBytes && (read = mg_read(connection, chunk, sizeof(chunk))) > 0) {
    body.append(chunk, static_cast<size_t>(read));
  }
  if (body.size() > kMaxBodyBytes) body.resize(kMaxBodyBytes);
  return body;
}

// Where the request came from (Request::peer_address). Behind the TLS front civetweb sees the
// front's loopback connection, whose port names the real peer; a connection the front did not
// make (a local process that reached civetweb's loopback port itself, or one whose relay has
// ended) gets a name of its own, so it is throttled apart from every real address.
std::string PeerAddress(const HttpServer::Shared& shared, const mg_request_info& info) {
  if (!shared.behind_tls_front) return info.remote_addr;
  std::optional<std::string> relayed = shared.relayed_peers.Find(info.remote_port);
  if (relayed.has_value()) return *std::move(relayed);
  return absl::StrCat(info.remote_addr, " (not through the TLS front)");
}

// civetweb's begin_request: every request is ours (nothing is served by civetweb itself).
// Returns the status, which tells civetweb the request was answered.
int AnswerRequest(mg_connection* connection) {
  const mg_request_info* info = mg_get_request_info(connection);
  const auto& shared = *static_cast<const HttpServer::Shared*>(info->user_data);
  // The decoded path as sent, ".." and all: the answerer refuses those itself.
  const char* path = info->local_uri_raw != nullptr ? info->local_uri_raw : info->local_uri;
  Request request{info->request_method == nullptr ? "" : info->request_method,
                  path == nullptr ? "" : path,
                  info->query_string == nullptr ? "" : info->query_string,
                  Header(connection, "Cookie"),
                  Header(connection, "Authorization"),
                  "",
                  Header(connection, "Origin"),
                  Header(connection, "Host"),
                  PeerAddress(shared, *info)};
  if (request.method == "POST") request.body = ReadBody(connection);
  const Response response = shared.answerer(request);
  mg_response_header_start(connection, response.status);
  mg_response_header_add(connection, "Content-Type", response.content_type.c_str(), -1);
  mg_response_header_add(connection, "Content-Length", std::to_string(response.body.size()).c_str(),
                         -1);
  for (const auto& [name, value] : response.headers) {
    mg_response_header_add(connection, name.c_str(), value.c_str(), -1);
  }
  mg_response_header_send(connection);
  if (request.method != "HEAD") mg_write(connection, response.body.data(), response.body.size());
  return response.status;
}

}  // namespace

HttpServer::HttpServer(mg_context* context, int port, std::unique_ptr<Shared> shared)
    : context_(context), port_(port), shared_(std::move(shared)) {}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                              RequestAnswerer answerer) {
  const bool tls = !options.tls_cert_path.empty();
  if (tls != !options.tls_key_path.empty()) {
    return absl::InvalidArgumentError("a TLS certificate needs its key, and a key its certificate");
  }
  // With TLS, civetweb serves plain HTTP on loopback behind the TLS front (tls_front.h says why).
  absl::StatusOr<std::unique_ptr<HttpServer>> server =
      StartPlain(tls ? "127.0.0.1:0" : options.listen, std::move(answerer), tls);
  if (!server.ok() || !tls) return server;
  absl::StatusOr<std::unique_ptr<TlsFront>> front =
      TlsFront::Start(options.listen, options.tls_cert_path, options.tls_key_path, (*server)->port_,
                      &(*server)->shared_->relayed_peers);
  if (!front.ok()) return front.status();
  (*server)->port_ = (*front)->port();
  (*server)->tls_front_ = *std::move(front);
  return server;
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::StartPlain(const std::string& listen,
                                                                   RequestAnswerer answerer,
                                                                   bool behind_tls_front) {
  auto shared = std::make_unique<Shared>();
  shared->answerer = std::move(answerer);
  shared->behind_tls_front = behind_tls_front;
  mg_init_library(0);
  // No document_root: civetweb serves no file of its own. No logs: a URL or a form may hold a
  // token.
  const char* civetweb_options[] = {"listening_ports", listen.c_str(), "num_threads", "8", nullptr};
  mg_callbacks callbacks = {};
  callbacks.begin_request = AnswerRequest;
  mg_init_data init = {&callbacks, shared.get(), civetweb_options};
  char reason[256] = {};
  mg_error_data error = {nullptr, reason, sizeof(reason)};
  mg_context* context = mg_start2(&init, &error);
  if (context == nullptr) {
    mg_exit_library();
    return absl::UnavailableError(absl::StrCat("cannot listen on ", listen, ": ", reason));
  }
  mg_server_port ports[1] = {};
  if (mg_get_server_ports(context, 1, ports) != 1 || ports[0].port <= 0) {
    mg_stop(context);
    mg_exit_library();
    return absl::InternalError(absl::StrCat("civetweb took no port for ", listen));
  }
  return std::unique_ptr<HttpServer>(new HttpServer(context, ports[0].port, std::move(shared)));
}

HttpServer::~HttpServer() {
  tls_front_.reset();  // first: its connections end before civetweb's requests
  mg_stop(context_);
  mg_exit_library();
}

}  // namespace protond::page_server
