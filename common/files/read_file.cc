#include "common/files/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace protond::files {

absl::StatusOr<std::string> ReadFromFd(int fd, const std::string& what) {
  std::string text;
  char buffer[65536];
  while (true) {
    const ssize_t got = read(fd, buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return absl::ErrnoToStatus(errno, absl::StrCat("reading ", what));
    if (got == 0) return text;
    text.append(buffer, static_cast<size_t>(got));
  }
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, const std::string& what) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat(what, " ", path));
  absl::StatusOr<std::string> text = ReadFromFd(fd, absl::StrCat(what, " ", path));
  close(fd);
  return text;
}

absl::StatusOr<std::string> ReadPrivateFile(const std::string& path, const std::string& what) {
  struct stat file;
  if (stat(path.c_str(), &file) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat(what, " ", path));
  }
  if ((file.st_mode & 077) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(what, " ", path, " may be read or written by others (mode ",
                     absl::StrFormat("%04o", file.st_mode & 07777), "); chmod 600 ", path));
  }
  return ReadWholeFile(path, what);
}

}  // namespace protond::files
