// One daemon per store: protond holds an exclusive lock on `<state dir>/protond.lock` for its
// whole life, and writes its pid and socket into that file. A second daemon started on the same
// state directory (with another socket, which the socket lock does not see) is refused, naming
// the holder, instead of handing out the same session ids and overwriting the first one's rows.
#ifndef PROTOND_DAEMON_STORE_STORE_LOCK_H_
#define PROTOND_DAEMON_STORE_STORE_LOCK_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace protond::store {

class StoreLock {
 public:
  // Locks `<state_dir>/protond.lock` without waiting and writes "<pid> <socket_path>" into it.
  // FailedPreconditionError naming the holder's pid and socket when another process holds it.
  // The lock file itself stays behind; the lock goes with the process.
  static absl::StatusOr<StoreLock> Acquire(const std::string& state_dir,
                                           const std::string& socket_path);

  // Locks `<state_dir>/protond.lock` anew when the path no longer leads to the file held (the
  // state directory was removed and made again): a daemon started on the new directory is then
  // refused as usual. Fails, naming the holder, when another daemon took it first.
  absl::Status RelockIfRemoved(const std::string& state_dir, const std::string& socket_path);

  StoreLock(StoreLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  StoreLock& operator=(StoreLock&&) = delete;
  ~StoreLock();  // releases the lock

 private:
  explicit StoreLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace protond::store

#endif  // PROTOND_DAEMON_STORE_STORE_LOCK_H_
