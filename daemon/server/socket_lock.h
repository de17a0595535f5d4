// One daemon per socket: before it touches its store or its socket, protond takes an exclusive
// lock on the file `<socket>.lock` and keeps it until it exits. Two daemons started at once for
// the same socket (two programs autostarting one, say) thus end as one: the second is refused at
// once instead of unlinking the first one's socket and leaving it serving nobody. The file also
// says which store the daemon keeps (Record), for the daemon autostarted there after it.
#ifndef PROTOND_DAEMON_SERVER_SOCKET_LOCK_H_
#define PROTOND_DAEMON_SERVER_SOCKET_LOCK_H_

#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace protond::server {

class SocketLock {
 public:
  // Creates the socket's directory if needed and locks `<socket_path>.lock` without waiting:
  // AlreadyExistsError when another process holds it; FailedPreconditionError when the lock file
  // is a symbolic link (never followed). The lock file itself stays behind.
  static absl::StatusOr<SocketLock> Acquire(const std::string& socket_path);

  // Writes paths::SocketLockRecord (this process's pid and `state_dir`, made absolute) into the
  // lock file, replacing an earlier daemon's. It stays there after this daemon ends, so that a
  // daemon autostarted at the socket keeps this one's store (paths::StateDirForSocket).
  absl::Status Record(const std::string& state_dir) const;

  SocketLock(SocketLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
    other.fd_ = -1;
  }
  SocketLock& operator=(SocketLock&&) = delete;
  ~SocketLock();  // releases the lock

 private:
  SocketLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

}  // namespace protond::server

#endif  // PROTOND_DAEMON_SERVER_SOCKET_LOCK_H_
