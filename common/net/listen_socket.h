// A listening TCP socket at HOST:PORT, as protond's own servers take one (--metrics-listen, the
// web page's HTTPS front): one parser and one set of messages for the address.
#ifndef PROTOND_COMMON_NET_LISTEN_SOCKET_H_
#define PROTOND_COMMON_NET_LISTEN_SOCKET_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::net {

// A socket (SOCK_CLOEXEC, SO_REUSEADDR) listening at `address`: HOST:PORT, HOST a name or an
// address (an IPv6 one in brackets), PORT 0 for any free one. Errors name `flag` and the address
// (INVALID_ARGUMENT for a bad one), or say that `what` cannot be served there (UNAVAILABLE).
absl::StatusOr<int> ListenOn(const std::string& address, absl::string_view flag,
                             absl::string_view what, int backlog);

// The port a socket listens on; for a connected socket, its own end's port.
int ListeningPort(int fd);

}  // namespace protond::net

#endif  // PROTOND_COMMON_NET_LISTEN_SOCKET_H_
