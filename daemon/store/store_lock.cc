#include "daemon/store/store_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace protond::store {
namespace {

// What the holder wrote: "<pid> <socket>", or a word for a holder that has not written it yet.
std::string ReadHolder(int fd) {
  char buffer[4096];
  const ssize_t n = pread(fd, buffer, sizeof(buffer), 0);
  if (n <= 0) return "one that has not yet said its pid";
  std::string holder(buffer, static_cast<size_t>(n));
  absl::StripTrailingAsciiWhitespace(&holder);
  const size_t space = holder.find(' ');
  if (space == std::string::npos) return absl::StrCat("pid ", holder);
  return absl::StrCat("pid ", holder.substr(0, space), ", socket ", holder.substr(space + 1));
}

}  // namespace

absl::StatusOr<StoreLock> StoreLock::Acquire(const std::string& state_dir,
                                             const std::string& socket_path) {
  const std::string path = state_dir + "/protond.lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int lock_errno = errno;
    std::string holder = lock_errno == EWOULDBLOCK ? ReadHolder(fd) : "";
    close(fd);
    if (lock_errno == EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat("another protond (", holder, ") uses the store in ", state_dir,
                       "; stop it, or give this one another --state-dir"));
    }
    return absl::ErrnoToStatus(lock_errno, absl::StrCat("cannot lock ", path));
  }
  const std::string holder = absl::StrCat(getpid(), " ", socket_path, "\n");
  if (ftruncate(fd, 0) != 0 ||
      pwrite(fd, holder.data(), holder.size(), 0) != static_cast<ssize_t>(holder.size())) {
    const int write_errno = errno;
    close(fd);
    return absl::ErrnoToStatus(write_errno, absl::StrCat("cannot write ", path));
  }
  return StoreLock(fd);
}

absl::Status StoreLock::RelockIfRemoved(const std::string& state_dir,
                                        const std::string& socket_path) {
  struct stat held, at_path;
  if (fstat(fd_, &held) == 0 && stat((state_dir + "/protond.lock").c_str(), &at_path) == 0 &&
      held.st_dev == at_path.st_dev && held.st_ino == at_path.st_ino) {
    return absl::OkStatus();
  }
  absl::StatusOr<StoreLock> again = Acquire(state_dir, socket_path);
  if (!again.ok()) return again.status();
  std::swap(fd_, again->fd_);
  return absl::OkStatus();
}

StoreLock::~StoreLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace protond::store
