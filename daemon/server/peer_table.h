// Credentials of accepted connections, by file descriptor. The accept thread adds an entry before
// gRPC sees the connection; gRPC handlers read it through their call's peer string "fd:N".
#ifndef PROTOND_DAEMON_SERVER_PEER_TABLE_H_
#define PROTOND_DAEMON_SERVER_PEER_TABLE_H_

#include <optional>
#include <string>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "daemon/server/peer_resolver.h"
#include "daemon/service/protond_service.h"

namespace protond::server {

class PeerTable final : public PeerResolver {
 public:
  // A descriptor number is reused only after gRPC closed the old connection, so the newest entry
  // for a number is the live one.
  void Set(int fd, service::Peer peer) {
    absl::MutexLock lock(&mutex_);
    peers_[fd] = peer;
  }

  // The credentials behind a gRPC peer string such as "fd:12".
  std::optional<service::Peer> Find(const std::string& grpc_peer) {
    constexpr std::string_view kPrefix = "fd:";
    if (grpc_peer.compare(0, kPrefix.size(), kPrefix) != 0) return std::nullopt;
    const int fd = std::atoi(grpc_peer.c_str() + kPrefix.size());
    absl::MutexLock lock(&mutex_);
    auto it = peers_.find(fd);
    if (it == peers_.end()) return std::nullopt;
    return it->second;
  }

  absl::StatusOr<service::Peer> Resolve(const grpc::ServerContext& context) override {
    std::optional<service::Peer> peer = Find(context.peer());
    if (!peer) return absl::UnauthenticatedError("caller credentials unknown");
    return *peer;
  }

 private:
  absl::Mutex mutex_;
  std::unordered_map<int, service::Peer> peers_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace protond::server

#endif  // PROTOND_DAEMON_SERVER_PEER_TABLE_H_
