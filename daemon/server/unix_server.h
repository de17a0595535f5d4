// protond's endpoint on a unix socket: gRPC for the API, and the shim's control connections
// (common/control/control_channel.h), told apart by their first bytes. The daemon accepts
// connections itself, so that it can read each peer's credentials (SO_PEERCRED) first; gRPC
// handlers map their call's peer ("fd:N") back to those credentials. Nothing from a message
// decides who the caller is.
#ifndef PROTOND_DAEMON_SERVER_UNIX_SERVER_H_
#define PROTOND_DAEMON_SERVER_UNIX_SERVER_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "daemon/service/protond_service.h"
#include "grpcpp/server.h"

namespace protond::server {

class UnixServer {
 public:
  // Binds `socket_path` and serves `service`, which must outlive the server. Refused if a live
  // daemon answers there, or if the path holds anything but a stale socket (stale_socket.h). If
  // the socket file is removed, it binds the path again within a second (unless another daemon
  // answers there by then, or something else was put there). The socket's directory must exist:
  // the daemon's SocketLock::Acquire (socket_lock.h), taken first, creates it.
  static absl::StatusOr<std::unique_ptr<UnixServer>> Start(const std::string& socket_path,
                                                           service::ProtondService* service);
  ~UnixServer();  // Shutdown()

  // Stops accepting, ends open control connections and waits for handlers, then removes the
  // socket.
  void Shutdown();

 private:
  struct Impl;
  explicit UnixServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace protond::server

#endif  // PROTOND_DAEMON_SERVER_UNIX_SERVER_H_
