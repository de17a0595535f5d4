#include "shim/control/socket_probe.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace protond::shim {

int ProbeSocket(const std::string& socket_path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(address.sun_path)) return ENAMETOOLONG;
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  // Non-blocking: a daemon whose backlog is full answers EAGAIN instead of holding us here.
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return errno;
  const bool connected =
      connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  const int error = connected || errno == EAGAIN ? 0 : errno;
  close(fd);
  return error;
}

bool NoDaemonAt(int probe_errno) { return probe_errno == ENOENT || probe_errno == ECONNREFUSED; }

}  // namespace protond::shim
