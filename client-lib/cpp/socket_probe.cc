#include "client-lib/cpp/socket_probe.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace protond::client {

SocketProbe ProbeSocket(const std::string& socket_path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(address.sun_path)) return {ENAMETOOLONG};
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  // Non-blocking: a daemon whose backlog is full answers EAGAIN instead of holding us here.
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return {errno};
  SocketProbe probe;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) {
    // The listener's credentials, as of its listen(): known before it accepts, so a stopped
    // daemon is named too.
    ucred peer{};
    socklen_t length = sizeof(peer);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0) probe.listener_pid = peer.pid;
  } else if (errno != EAGAIN) {
    probe.connect_errno = errno;
  }
  close(fd);
  return probe;
}

bool SocketProbe::NoDaemon() const {
  return connect_errno == ENOENT || connect_errno == ECONNREFUSED;
}

std::string DescribeSilentSocket(const std::string& socket_path, const SocketProbe& probe) {
  if (probe.Accepts()) {
    const std::string who =
        probe.listener_pid > 0 ? absl::StrCat("protond (pid ", probe.listener_pid, ")") : "protond";
    return absl::StrCat(who, " at ", socket_path, " is not answering (stopped or overloaded)");
  }
  const std::string reason = std::strerror(probe.connect_errno);
  if (probe.NoDaemon()) {
    return absl::StrCat("no protond is listening at ", socket_path, " (", reason, ")");
  }
  return absl::StrCat("protond at ", socket_path, " cannot be reached (", reason, ")");
}

}  // namespace protond::client
