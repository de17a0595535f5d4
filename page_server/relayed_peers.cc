#include "page_server/relayed_peers.h"

namespace protond::page_server {

void RelayedPeers::Note(int loopback_port, std::string peer_address) {
  absl::MutexLock lock(&mutex_);
  peer_by_port_[loopback_port] = std::move(peer_address);
}

void RelayedPeers::Forget(int loopback_port) {
  absl::MutexLock lock(&mutex_);
  peer_by_port_.erase(loopback_port);
}

std::optional<std::string> RelayedPeers::Find(int loopback_port) const {
  absl::MutexLock lock(&mutex_);
  const auto found = peer_by_port_.find(loopback_port);
  if (found == peer_by_port_.end()) return std::nullopt;
  return found->second;
}

}  // namespace protond::page_server
