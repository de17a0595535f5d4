#include "cli/ui/http_server.h"

#include <civetweb.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace protond::cli::ui {
namespace {

std::string Header(mg_connection* connection, const char* name) {
  const char* value = mg_get_header(connection, name);
  return value == nullptr ? "" : value;
}

// civetweb's begin_request: every request is ours (nothing is served by civetweb itself).
// Returns the status, which tells civetweb the request was answered.
int AnswerRequest(mg_connection* connection) {
  const mg_request_info* info = mg_get_request_info(connection);
  const Router& router = *static_cast<const Router*>(info->user_data);
  // The decoded path as sent, ".." and all: the router refuses those itself.
  const char* path = info->local_uri_raw != nullptr ? info->local_uri_raw : info->local_uri;
  Request request{info->request_method == nullptr ? "" : info->request_method,
                  path == nullptr ? "" : path,
                  info->query_string == nullptr ? "" : info->query_string,
                  Header(connection, "Cookie"), Header(connection, "Authorization")};
  const Response response = router.Answer(request);
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

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(int port, const Router& router) {
  mg_init_library(0);
  const std::string listen = absl::StrCat("127.0.0.1:", port);
  // No document_root: civetweb serves no file of its own. No logs: a URL may hold the token.
  const char* options[] = {"listening_ports", listen.c_str(), "num_threads", "8", nullptr};
  mg_callbacks callbacks = {};
  callbacks.begin_request = AnswerRequest;
  mg_init_data init = {&callbacks, const_cast<void*>(static_cast<const void*>(&router)), options};
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
  return std::unique_ptr<HttpServer>(new HttpServer(context, ports[0].port));
}

HttpServer::~HttpServer() {
  mg_stop(context_);
  mg_exit_library();
}

}  // namespace protond::cli::ui
