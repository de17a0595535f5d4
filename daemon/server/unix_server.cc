#include "daemon/server/unix_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/control/control_channel.h"
#include "daemon/server/control_connection.h"
#include "daemon/server/grpc_services.h"
#include "daemon/server/peer_table.h"
#include "daemon/server/stale_socket.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/server_posix.h"

namespace protond::server {
namespace {

constexpr int kMaxMessageBytes = 64 << 20;

absl::Status ErrnoError(const std::string& what) { return absl::ErrnoToStatus(errno, what); }

absl::StatusOr<int> Listen(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("socket path ", path, " is longer than ",
                                                   sizeof(address.sun_path) - 1, " bytes"));
  }
  std::strcpy(address.sun_path, path.c_str());
  if (absl::Status cleared = RemoveStaleSocket(address); !cleared.ok()) return cleared;
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return ErrnoError("socket");
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 128) != 0) {
    const absl::Status status = ErrnoError(absl::StrCat("binding ", path));
    close(fd);
    return status;
  }
  // A node-wide (root) daemon serves every user and authorizes each call by SO_PEERCRED; a
  // user's own daemon is reachable by that user only.
  chmod(path.c_str(), geteuid() == 0 ? 0666 : 0600);
  return fd;
}

// The inode of the file at `path` itself (not of what a link there points at); 0 when there is
// none.
ino_t InodeAt(const std::string& path) {
  struct stat file;
  return lstat(path.c_str(), &file) == 0 ? file.st_ino : 0;
}

// How often the accept loop checks that the socket file is still there.
constexpr auto kSocketCheckInterval = std::chrono::seconds(1);

}  // namespace

struct UnixServer::Impl {
  std::string socket_path;
  int listen_fd = -1;
  ino_t socket_inode = 0;  // the socket file's, to notice when it is removed or replaced
  bool relisten_failure_logged = false;
  PeerTable peers;
  service::ProtondService* service = nullptr;
  std::unique_ptr<SessionsService> sessions;
  std::unique_ptr<QueryService> query;
  std::unique_ptr<grpc::Server> server;
  std::atomic<bool> stopping{false};
  std::thread accept_thread;
  absl::Mutex connections_mutex;
  int dispatching ABSL_GUARDED_BY(connections_mutex) = 0;  // connection threads still running

  // Tells a control connection from a gRPC one by its first bytes (gRPC sends its preface at
  // once), on a thread of its own, which serves a control connection for its whole life.
  void Dispatch(int fd, service::Peer peer) {
    char first[control::kControlMagicBytes];
    ssize_t peeked = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (peeked < static_cast<ssize_t>(sizeof(first)) && !stopping.load() &&
           std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 50) < 0) break;
      peeked = recv(fd, first, sizeof(first), MSG_PEEK);
      if (peeked == 0 || (peeked < 0 && errno != EAGAIN)) break;
      if (peeked < static_cast<ssize_t>(sizeof(first))) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the rest is on its way
      }
    }
    if (peeked != static_cast<ssize_t>(sizeof(first))) {
      close(fd);
    } else if (std::memcmp(first, control::kControlMagic, sizeof(first)) == 0) {
      recv(fd, first, sizeof(first), 0);
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      ServeControlConnection(fd, peer, service, stopping);
    } else {
      peers.Set(fd, peer);
      grpc::AddInsecureChannelFromFd(server.get(), fd);
    }
    absl::MutexLock lock(&connections_mutex);
    --dispatching;
  }

  // A removed socket file (a cleanup of /tmp or /run, a mistaken rm) leaves the daemon running
  // but unreachable for every process that starts after: bind the path again, unless another
  // daemon answers there now or something else was put there (kept: stale_socket.h).
  // Connections already open are not affected either way.
  void ListenAgainIfSocketRemoved() {
    if (InodeAt(socket_path) == socket_inode) return;
    absl::StatusOr<int> fd = Listen(socket_path);
    if (!fd.ok()) {
      if (!relisten_failure_logged) {
        std::fprintf(stderr, "protond: %s is no longer this daemon's socket, and: %s\n",
                     socket_path.c_str(), std::string(fd.status().message()).c_str());
      }
      relisten_failure_logged = true;
      return;
    }
    close(listen_fd);
    listen_fd = *fd;
    socket_inode = InodeAt(socket_path);
    relisten_failure_logged = false;
    std::fprintf(stderr, "protond: %s was removed; listening there again\n", socket_path.c_str());
  }

  void AcceptLoop() {
    auto next_socket_check = std::chrono::steady_clock::now() + kSocketCheckInterval;
    while (!stopping.load()) {
      if (std::chrono::steady_clock::now() >= next_socket_check) {
        ListenAgainIfSocketRemoved();
        next_socket_check = std::chrono::steady_clock::now() + kSocketCheckInterval;
      }
      pollfd p{listen_fd, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      // Non-blocking, as gRPC's event engine requires of an adopted descriptor.
      const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) continue;
      ucred credentials{};
      socklen_t length = sizeof(credentials);
      if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) {
        close(fd);
        continue;
      }
      {
        absl::MutexLock lock(&connections_mutex);
        ++dispatching;
      }
      service::Peer peer;
      peer.pid = static_cast<uint32_t>(credentials.pid);
      peer.uid = credentials.uid;
      std::thread([this, fd, peer] { Dispatch(fd, peer); }).detach();
    }
  }
};

absl::StatusOr<std::unique_ptr<UnixServer>> UnixServer::Start(const std::string& socket_path,
                                                              service::ProtondService* service) {
  auto impl = std::make_unique<Impl>();
  impl->socket_path = socket_path;
  absl::StatusOr<int> fd = Listen(socket_path);
  if (!fd.ok()) return fd.status();
  impl->listen_fd = *fd;
  impl->socket_inode = InodeAt(socket_path);
  impl->service = service;
  impl->sessions = std::make_unique<SessionsService>(service, &impl->peers);
  impl->query = std::make_unique<QueryService>(service, &impl->peers);
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  builder.RegisterService(impl->sessions.get());
  builder.RegisterService(impl->query.get());
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr) {
    close(impl->listen_fd);
    return absl::InternalError("gRPC server failed to start");
  }
  impl->accept_thread = std::thread([raw = impl.get()] { raw->AcceptLoop(); });
  return std::unique_ptr<UnixServer>(new UnixServer(std::move(impl)));
}

UnixServer::UnixServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

UnixServer::~UnixServer() { Shutdown(); }

void UnixServer::Shutdown() {
  if (impl_->stopping.exchange(true)) return;
  impl_->accept_thread.join();
  {
    // Control connections end within their command wait once `stopping` is set.
    Impl& impl = *impl_;
    absl::MutexLock lock(&impl.connections_mutex);
    impl.connections_mutex.AwaitWithTimeout(
        absl::Condition(
            +[](int* dispatching) { return *dispatching == 0; }, &impl.dispatching),
        absl::Seconds(2));
  }
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  close(impl_->listen_fd);
  // Not another daemon's, bound after ours was removed.
  if (InodeAt(impl_->socket_path) == impl_->socket_inode) unlink(impl_->socket_path.c_str());
}

}  // namespace protond::server
