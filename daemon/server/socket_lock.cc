#include "daemon/server/socket_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/paths/daemon_paths.h"

namespace protond::server {

absl::StatusOr<SocketLock> SocketLock::Acquire(const std::string& socket_path) {
  const std::filesystem::path dir = std::filesystem::path(socket_path).parent_path();
  std::error_code error;
  if (!dir.empty()) std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create the socket directory ", dir.string(), ": ", error.message()));
  }
  const std::string path = paths::SocketLockPath(socket_path);
  // O_NOFOLLOW: a link planted at the name would have root create or lock its target.
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 && errno == ELOOP) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is a symbolic link, not protond's lock file"));
  }
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int lock_errno = errno;
    close(fd);
    if (lock_errno == EWOULDBLOCK) {
      return absl::AlreadyExistsError(
          absl::StrCat("another protond serves ", socket_path, " (it holds ", path, ")"));
    }
    return absl::ErrnoToStatus(lock_errno, absl::StrCat("cannot lock ", path));
  }
  return SocketLock(fd, path);
}

absl::Status SocketLock::Record(const std::string& state_dir) const {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(state_dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot tell where ", state_dir, " is: ", error.message()));
  }
  const std::string record =
      paths::SocketLockRecord(getpid(), absolute.lexically_normal().string());
  if (ftruncate(fd_, 0) != 0 ||
      pwrite(fd_, record.data(), record.size(), 0) != static_cast<ssize_t>(record.size())) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", path_));
  }
  return absl::OkStatus();
}

SocketLock::~SocketLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace protond::server
