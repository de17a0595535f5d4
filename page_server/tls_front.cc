#include "page_server/tls_front.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/net/listen_socket.h"

namespace protond::page_server {
namespace {

constexpr int kBacklog = 64;
// A handshake, or a read or write once poll said it could go on, that takes longer ends the
// connection: a client that stops half-way holds a thread no longer than this.
constexpr timeval kStallTimeout = {10, 0};
// A connection with no byte either way for this long is closed (a browser opens another).
constexpr int kIdleMs = 60'000;

std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  if (code == 0) return "no reason given";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

absl::StatusOr<SSL_CTX*> NewContext(const std::string& cert_path, const std::string& key_path) {
  SSL_CTX* context = SSL_CTX_new(TLS_server_method());
  if (context == nullptr) return absl::InternalError("cannot make a TLS context");
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  absl::Status loaded = absl::OkStatus();
  if (SSL_CTX_use_certificate_chain_file(context, cert_path.c_str()) != 1) {
    loaded = absl::InvalidArgumentError(
        absl::StrCat("cannot read the certificate ", cert_path, ": ", OpenSslError()));
  } else if (SSL_CTX_use_PrivateKey_file(context, key_path.c_str(), SSL_FILETYPE_PEM) != 1) {
    loaded = absl::InvalidArgumentError(
        absl::StrCat("cannot read the key ", key_path, ": ", OpenSslError()));
  } else if (SSL_CTX_check_private_key(context) != 1) {
    loaded = absl::InvalidArgumentError(
        absl::StrCat("the key ", key_path, " is not the certificate's: ", OpenSslError()));
  }
  if (!loaded.ok()) {
    SSL_CTX_free(context);
    return loaded;
  }
  return context;
}

int ConnectToBackend(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// A peer's address as text ("203.0.113.7", "2001:db8::1"): what the sign-in throttle counts by.
std::string AddressText(const sockaddr_storage& peer) {
  char text[INET6_ADDRSTRLEN] = {};
  const void* address =
      peer.ss_family == AF_INET6
          ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(&peer)->sin6_addr)
          : &reinterpret_cast<const sockaddr_in*>(&peer)->sin_addr;
  if (inet_ntop(peer.ss_family, address, text, sizeof(text)) == nullptr) return "unknown";
  return text;
}

bool SendAll(int fd, const char* bytes, size_t size) {
  while (size > 0) {
    const ssize_t sent = send(fd, bytes, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    bytes += sent;
    size -= static_cast<size_t>(sent);
  }
  return true;
}

}  // namespace

TlsFront::TlsFront(SSL_CTX* context, int listen_fd, int wake_fd, int backend_port,
                   RelayedPeers* peers)
    : context_(context),
      listen_fd_(listen_fd),
      wake_fd_(wake_fd),
      port_(net::ListeningPort(listen_fd)),
      backend_port_(backend_port),
      peers_(peers) {}

absl::StatusOr<std::unique_ptr<TlsFront>> TlsFront::Start(const std::string& listen,
                                                          const std::string& cert_path,
                                                          const std::string& key_path,
                                                          int backend_port, RelayedPeers* peers) {
  absl::StatusOr<SSL_CTX*> context = NewContext(cert_path, key_path);
  if (!context.ok()) return context.status();
  absl::StatusOr<int> listen_fd = net::ListenOn(listen, "--web-listen", "the page", kBacklog);
  const int wake_fd = eventfd(0, EFD_CLOEXEC);
  if (!listen_fd.ok() || wake_fd < 0) {
    SSL_CTX_free(*context);
    if (listen_fd.ok()) close(*listen_fd);
    if (wake_fd >= 0) close(wake_fd);
    if (!listen_fd.ok()) return listen_fd.status();
    return absl::InternalError(absl::StrCat("eventfd for the page: ", std::strerror(errno)));
  }
  std::unique_ptr<TlsFront> front(new TlsFront(*context, *listen_fd, wake_fd, backend_port, peers));
  front->accept_thread_ = std::thread([f = front.get()] { f->AcceptLoop(); });
  return front;
}

TlsFront::~TlsFront() {
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  accept_thread_.join();
  // The wake-up ends every connection's relay; each thread then ends.
  std::list<Connection> connections;
  {
    absl::MutexLock lock(&mutex_);
    connections.swap(connections_);
  }
  for (Connection& connection : connections) connection.thread.join();
  close(listen_fd_);
  close(wake_fd_);
  SSL_CTX_free(context_);
}

void TlsFront::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if (fds[0].revents == 0) continue;
    sockaddr_storage peer = {};
    socklen_t peer_length = sizeof(peer);
    const int client_fd =
        accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &peer_length, SOCK_CLOEXEC);
    if (client_fd < 0) continue;
    if (!AddConnection(client_fd, AddressText(peer))) close(client_fd);
  }
}

bool TlsFront::AddConnection(int client_fd, std::string peer_address) {
  std::vector<std::thread> ended;
  absl::MutexLock lock(&mutex_);
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (!it->ended) {
      ++it;
      continue;
    }
    ended.push_back(std::move(it->thread));
    it = connections_.erase(it);
  }
  // Their last act was to say so under mutex_: joining them holding it waits for no lock.
  for (std::thread& thread : ended) thread.join();
  if (connections_.size() >= kMaxConnections) return false;
  Connection& connection = connections_.emplace_back();
  // Started under mutex_: it cannot say it ended before its thread is stored.
  connection.thread = std::thread([this, &connection, client_fd, peer = std::move(peer_address)] {
    Serve(client_fd, peer);
    absl::MutexLock lock(&mutex_);
    connection.ended = true;
  });
  return true;
}

void TlsFront::Serve(int client_fd, const std::string& peer_address) {
  setsockopt(client_fd, SOL_SOCKET, SO_RCVTIMEO, &kStallTimeout, sizeof(kStallTimeout));
  setsockopt(client_fd, SOL_SOCKET, SO_SNDTIMEO, &kStallTimeout, sizeof(kStallTimeout));
  SSL* ssl = SSL_new(context_);
  if (ssl != nullptr && SSL_set_fd(ssl, client_fd) == 1 && SSL_accept(ssl) == 1) {
    const int backend_fd = ConnectToBackend(backend_port_);
    if (backend_fd >= 0) {
      // Noted before civetweb can see a byte of it, forgotten before its port can be reused.
      const int loopback_port = net::ListeningPort(backend_fd);
      peers_->Note(loopback_port, peer_address);
      Relay(ssl, client_fd, backend_fd);
      peers_->Forget(loopback_port);
      close(backend_fd);
    }
    SSL_shutdown(ssl);
  }
  SSL_free(ssl);
  ERR_clear_error();
  close(client_fd);
}

void TlsFront::Relay(SSL* ssl, int client_fd, int backend_fd) {
  char buffer[16384];
  for (;;) {
    // Bytes OpenSSL already decrypted are not on the socket: read them before polling.
    if (SSL_pending(ssl) == 0) {
      pollfd fds[3] = {{client_fd, POLLIN, 0}, {backend_fd, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      const int ready = poll(fds, 3, kIdleMs);
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0 || fds[2].revents != 0) return;
      if (fds[1].revents != 0) {
        const ssize_t got = read(backend_fd, buffer, sizeof(buffer));
        if (got <= 0 || SSL_write(ssl, buffer, static_cast<int>(got)) != got) return;
        continue;
      }
      if (fds[0].revents == 0) continue;
    }
    const int got = SSL_read(ssl, buffer, sizeof(buffer));
    if (got <= 0 || !SendAll(backend_fd, buffer, static_cast<size_t>(got))) return;
  }
}

}  // namespace protond::page_server
