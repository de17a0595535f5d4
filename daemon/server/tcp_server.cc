#include "daemon/server/tcp_server.h"

#include <arpa/inet.h>

#include <atomic>
#include <chrono>
#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/files/read_file.h"
#include "common/status/status_macros.h"
#include "daemon/server/grpc_services.h"
#include "daemon/server/peer_resolver.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"

namespace protond::server {
namespace {

constexpr int kMaxMessageBytes = 64 << 20;

// The caller of a TCP call is whoever its token names. Refusals are logged with the caller's
// address, never the token, at most one line a second so that a flood cannot fill the disk.
class TokenPeers final : public PeerResolver {
 public:
  explicit TokenPeers(std::shared_ptr<const TokenFile> tokens) : tokens_(std::move(tokens)) {}

  absl::StatusOr<service::Peer> Resolve(const grpc::ServerContext& context) override {
    const auto& metadata = context.client_metadata();
    auto header = metadata.find("authorization");
    const absl::string_view authorization =
        header == metadata.end() ? absl::string_view()
                                 : absl::string_view(header->second.data(), header->second.size());
    absl::StatusOr<service::Peer> peer = tokens_->PeerFor(authorization, absl::Now());
    if (!peer.ok()) LogRefusal(context.peer(), peer.status());
    return peer;
  }

 private:
  void LogRefusal(const std::string& from, const absl::Status& why) {
    const int64_t now_s = absl::ToUnixSeconds(absl::Now());
    const uint64_t refused = ++refused_;
    if (last_log_s_.exchange(now_s) == now_s) return;
    std::fprintf(stderr, "protond: refused a TCP call from %s: %s (%llu refused so far)\n",
                 from.c_str(), std::string(why.message()).c_str(),
                 static_cast<unsigned long long>(refused));
  }

  const std::shared_ptr<const TokenFile> tokens_;
  std::atomic<uint64_t> refused_{0};
  std::atomic<int64_t> last_log_s_{0};
};

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* flag) {
  ASSIGN_OR_RETURN(std::string text, files::ReadWholeFile(path, flag));
  if (!absl::StrContains(text, "-----BEGIN ")) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, " is not a PEM file"));
  }
  return text;
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(const TcpOptions& options) {
  const bool has_tls = !options.tls_cert_path.empty() || !options.tls_key_path.empty();
  if (options.insecure) {
    if (has_tls) {
      return absl::InvalidArgumentError("--insecure and --tls-cert/--tls-key: choose one");
    }
    if (!IsLoopbackAddress(options.listen)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--insecure serves plain TCP, which only a loopback address may: ", options.listen,
          " is not one; give --tls-cert and --tls-key instead"));
    }
    return grpc::InsecureServerCredentials();
  }
  if (options.tls_cert_path.empty() || options.tls_key_path.empty()) {
    return absl::InvalidArgumentError(
        "--listen needs --tls-cert FILE and --tls-key FILE (or --insecure on a loopback address)");
  }
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  ASSIGN_OR_RETURN(pair.cert_chain, ReadPem(options.tls_cert_path, "--tls-cert"));
  ASSIGN_OR_RETURN(pair.private_key, ReadPem(options.tls_key_path, "--tls-key"));
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back(std::move(pair));
  return grpc::SslServerCredentials(ssl);
}

}  // namespace

bool IsLoopbackAddress(const std::string& listen) {
  absl::string_view host = listen;
  const size_t colon = host.rfind(':');
  if (colon == absl::string_view::npos) return false;
  host = host.substr(0, colon);
  if (absl::ConsumePrefix(&host, "[") && !absl::ConsumeSuffix(&host, "]")) return false;
  if (host == "localhost") return true;
  const std::string text(host);
  in_addr v4;
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6;
  return inet_pton(AF_INET6, text.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

struct TcpServer::Impl {
  std::unique_ptr<TokenPeers> peers;
  std::unique_ptr<SessionsService> sessions;
  std::unique_ptr<QueryService> query;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

TcpServer::TcpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TcpServer::~TcpServer() { Shutdown(); }
int TcpServer::port() const { return impl_->port; }

void TcpServer::Shutdown() {
  if (impl_->server == nullptr) return;
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  impl_->server.reset();
}

absl::StatusOr<std::unique_ptr<TcpServer>> TcpServer::Start(
    const TcpOptions& options, service::ProtondService* service,
    std::shared_ptr<const TokenFile> tokens) {
  const size_t colon = options.listen.rfind(':');
  int port = 0;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(options.listen.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen ", options.listen, " is not HOST:PORT (such as 0.0.0.0:7878)"));
  }
  if (options.tokens_path.empty() || tokens == nullptr) {
    return absl::InvalidArgumentError("--listen needs --tokens FILE: every TCP call needs a token");
  }
  ASSIGN_OR_RETURN(auto credentials, Credentials(options));
  auto impl = std::make_unique<Impl>();
  impl->peers = std::make_unique<TokenPeers>(std::move(tokens));
  impl->sessions = std::make_unique<SessionsService>(service, impl->peers.get());
  impl->query = std::make_unique<QueryService>(service, impl->peers.get());
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  builder.AddListeningPort(options.listen, credentials, &impl->port);
  builder.RegisterService(impl->sessions.get());
  builder.RegisterService(impl->query.get());
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || impl->port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen at ", options.listen,
                                               " (in use, or not an address of this machine)"));
  }
  return std::unique_ptr<TcpServer>(new TcpServer(std::move(impl)));
}

}  // namespace protond::server
