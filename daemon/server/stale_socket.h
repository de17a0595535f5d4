// What protond may find at its socket path before it binds it. A daemon that died leaves its
// socket file behind, and only that is removed: a socket of protond's own user at which nobody
// answers. Anything else there (a regular file, a directory, a link, another user's socket) is
// someone's, and is refused with what it is, never deleted: protond runs as root on shared nodes.
#ifndef PROTOND_DAEMON_SERVER_STALE_SOCKET_H_
#define PROTOND_DAEMON_SERVER_STALE_SOCKET_H_

#include <sys/un.h>

#include "absl/status/status.h"

namespace protond::server {

// OK when `address`'s path is free for bind(): nothing was there, or a stale socket that is now
// removed. AlreadyExistsError when a daemon answers there; FailedPreconditionError "PATH is a
// regular file, not protond's socket" (a directory, ...) for anything else.
absl::Status RemoveStaleSocket(const sockaddr_un& address);

}  // namespace protond::server

#endif  // PROTOND_DAEMON_SERVER_STALE_SOCKET_H_
