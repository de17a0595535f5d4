#include "daemon/server/stale_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/files/file_type.h"

namespace protond::server {
namespace {

// True if something accepts connections at `address`.
bool SomeoneListens(const sockaddr_un& address) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool listening =
      connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  close(fd);
  return listening;
}

}  // namespace

absl::Status RemoveStaleSocket(const sockaddr_un& address) {
  const std::string path = address.sun_path;
  struct stat file;
  // lstat: a link is refused as a link, whatever it points at.
  if (lstat(path.c_str(), &file) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot look at ", path));
  }
  if (!S_ISSOCK(file.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is ", files::FileTypeName(file.st_mode), ", not protond's socket"));
  }
  if (file.st_uid != geteuid()) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is a socket of uid ", file.st_uid,
                     ", not protond's socket (protond runs as uid ", geteuid(), ")"));
  }
  if (SomeoneListens(address)) {
    return absl::AlreadyExistsError(absl::StrCat("a protond already listens at ", path));
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot remove the stale socket ", path));
  }
  return absl::OkStatus();
}

}  // namespace protond::server
