// HTTPS in front of the page's plain HTTP server. Debian 12's civetweb 1.15 cannot serve TLS with
// OpenSSL 3: it loads libssl at run time and looks up SSL_get_peer_certificate, which OpenSSL 3
// no longer exports (civetweb issue 1334), then calls the null pointer on the first HTTPS request
// and the process dies. So TLS is done here, with OpenSSL itself: each connection's handshake with
// the certificate and key, then its bytes relayed to and from civetweb on a loopback port. Each
// relayed connection's peer address is noted in a RelayedPeers (relayed_peers.h) for as long as
// it is relayed, so the server knows a caller's real address.
//
// Threads: one accepts; each connection has its own (at most kMaxConnections at once). The
// process must ignore SIGPIPE (protond does): a client may go away while it is written to.
#ifndef PROTOND_PAGE_SERVER_TLS_FRONT_H_
#define PROTOND_PAGE_SERVER_TLS_FRONT_H_

#include <list>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "page_server/relayed_peers.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace protond::page_server {

class TlsFront {
 public:
  static constexpr int kMaxConnections = 64;

  // Listens at `listen` (HOST:PORT; port 0: any free one) with the PEM certificate chain and key,
  // and relays each connection to 127.0.0.1:`backend_port`, noting its peer in `peers` (which
  // must outlive the front). Errors name the file or the address.
  static absl::StatusOr<std::unique_ptr<TlsFront>> Start(const std::string& listen,
                                                         const std::string& cert_path,
                                                         const std::string& key_path,
                                                         int backend_port, RelayedPeers* peers);
  // Stops accepting, ends every connection and waits for their threads.
  ~TlsFront();
  TlsFront(const TlsFront&) = delete;
  TlsFront& operator=(const TlsFront&) = delete;

  int port() const { return port_; }

 private:
  TlsFront(SSL_CTX* context, int listen_fd, int wake_fd, int backend_port, RelayedPeers* peers);
  void AcceptLoop();
  // Takes a new connection's thread, after joining those that have ended; false when
  // kMaxConnections are open.
  bool AddConnection(int client_fd, std::string peer_address);
  // On the connection's own thread: the handshake, then the relay until either side ends, the
  // connection idles, or the front stops.
  void Serve(int client_fd, const std::string& peer_address);
  void Relay(SSL* ssl, int client_fd, int backend_fd);

  SSL_CTX* const context_;
  const int listen_fd_;
  const int wake_fd_;  // an eventfd, written once to stop every thread
  const int port_;
  const int backend_port_;
  RelayedPeers* const peers_;
  std::thread accept_thread_;
  // Each connection's thread, joined once it has ended (the next accept, or the destructor): a
  // thread is joined, never detached, so none runs on after the front is gone.
  struct Connection {
    std::thread thread;
    bool ended = false;
  };
  absl::Mutex mutex_;
  std::list<Connection> connections_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_TLS_FRONT_H_
