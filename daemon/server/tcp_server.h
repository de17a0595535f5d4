// protond's API over TCP, for callers on other machines (`protond --listen HOST:PORT`): the same
// Sessions and Query services as on the unix socket, behind TLS, each call authorized by its
// token (token_file.h). Plain TCP is for loopback addresses only (`--insecure`), as a test or an
// SSH tunnel uses it; tokens are needed either way. The shim's control connections stay on the
// unix socket: a process registers only with the daemon of its own node.
#ifndef PROTOND_DAEMON_SERVER_TCP_SERVER_H_
#define PROTOND_DAEMON_SERVER_TCP_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/server/token_file.h"
#include "daemon/service/protond_service.h"

namespace protond::server {

struct TcpOptions {
  std::string listen;         // HOST:PORT; port 0 takes a free one (see TcpServer::port)
  std::string tls_cert_path;  // PEM certificate chain; with tls_key_path, or neither if insecure
  std::string tls_key_path;
  bool insecure = false;    // plain TCP: refused unless `listen` is a loopback address
  std::string tokens_path;  // required: read into the TokenFile that Start is given
};

class TcpServer {
 public:
  // Checks the options (each error names the flag), reads the certificate and key, and serves
  // `service`, which must outlive the server, to the callers of `tokens` (options.tokens_path's,
  // shared with the web page; nullptr when --tokens was not given, which is refused).
  static absl::StatusOr<std::unique_ptr<TcpServer>> Start(const TcpOptions& options,
                                                          service::ProtondService* service,
                                                          std::shared_ptr<const TokenFile> tokens);
  ~TcpServer();  // Shutdown()

  int port() const;
  // Stops taking calls and waits for those under way (2 s at most).
  void Shutdown();

 private:
  struct Impl;
  explicit TcpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Whether `listen` (HOST:PORT, HOST maybe in brackets) names a loopback host.
bool IsLoopbackAddress(const std::string& listen);

}  // namespace protond::server

#endif  // PROTOND_DAEMON_SERVER_TCP_SERVER_H_
