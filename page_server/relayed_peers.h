// Who is behind each connection the TLS front (tls_front.h) relays to civetweb: the front
// connects to civetweb on loopback, so civetweb sees every caller as 127.0.0.1. The front notes
// each relayed connection's real peer address under the local port of its loopback connection,
// before relaying a byte, and forgets it before closing that connection; the HTTP server looks a
// request's caller up by the port civetweb saw it come from. A port is chosen by the kernel, so a
// client cannot forge it as it could a header (docs/web.md, "protond serves the page").
// Thread-safe: the front's connection threads note and forget, civetweb's threads look up.
#ifndef PROTOND_PAGE_SERVER_RELAYED_PEERS_H_
#define PROTOND_PAGE_SERVER_RELAYED_PEERS_H_

#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace protond::page_server {

class RelayedPeers {
 public:
  void Note(int loopback_port, std::string peer_address) ABSL_LOCKS_EXCLUDED(mutex_);
  void Forget(int loopback_port) ABSL_LOCKS_EXCLUDED(mutex_);
  // The peer relayed from `loopback_port`; nothing for a connection the front did not make.
  std::optional<std::string> Find(int loopback_port) const ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  mutable absl::Mutex mutex_;
  // At most TlsFront::kMaxConnections entries: one per open relayed connection.
  std::map<int, std::string> peer_by_port_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_RELAYED_PEERS_H_
