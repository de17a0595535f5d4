// Who makes a gRPC call, as its transport knows it: on the unix socket, the connection's
// SO_PEERCRED (PeerTable); over TCP, the call's token (TcpServer's, from a TokenTable). The
// services (grpc_services.h) ask it for every call and never look at a message to decide.
#ifndef PROTOND_DAEMON_SERVER_PEER_RESOLVER_H_
#define PROTOND_DAEMON_SERVER_PEER_RESOLVER_H_

#include "absl/status/statusor.h"
#include "daemon/service/protond_service.h"
#include "grpcpp/server_context.h"

namespace protond::server {

class PeerResolver {
 public:
  virtual ~PeerResolver() = default;
  // The caller, or UNAUTHENTICATED saying why it is not known. Called on gRPC's threads.
  virtual absl::StatusOr<service::Peer> Resolve(const grpc::ServerContext& context) = 0;
};

}  // namespace protond::server

#endif  // PROTOND_DAEMON_SERVER_PEER_RESOLVER_H_
