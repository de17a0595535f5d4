#include "cli/export/output_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

absl::Status Exists(const std::string& path) {
  return absl::AlreadyExistsError(
      absl::StrCat(path, " exists; --force overwrites it, or choose another -o"));
}

absl::Status ErrnoError(const std::string& what, const std::string& path) {
  return absl::UnavailableError(absl::StrCat("cannot ", what, " ", path, ": ", strerror(errno)));
}

absl::Status WriteAll(int fd, const std::string& contents, const std::string& path) {
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("write", path);
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status WriteNewFile(const std::string& path, const std::string& contents) {
  // 0666 before the umask: the permissions any other new file of the user gets.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return ErrnoError("create", path);
  absl::Status written = WriteAll(fd, contents, path);
  if (close(fd) != 0 && written.ok()) written = ErrnoError("close", path);
  if (!written.ok()) unlink(path.c_str());
  return written;
}

absl::Status Rename(const std::string& from, const std::string& to, bool force) {
  if (force) {
    if (rename(from.c_str(), to.c_str()) != 0) return ErrnoError("rename to", to);
    return absl::OkStatus();
  }
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) {
    return absl::OkStatus();
  }
  return errno == EEXIST ? Exists(to) : ErrnoError("rename to", to);
}

}  // namespace

absl::Status CheckOutputPath(const std::string& path, bool force) {
  struct stat info;
  if (!force && lstat(path.c_str(), &info) == 0) return Exists(path);
  return absl::OkStatus();
}

absl::Status WriteOutputFile(const std::string& path, const std::string& contents, bool force) {
  RETURN_IF_ERROR(CheckOutputPath(path, force));
  // Beside `path`, so the rename stays on one file system.
  const std::string temporary = absl::StrCat(path, ".protonctl-", getpid(), ".tmp");
  RETURN_IF_ERROR(WriteNewFile(temporary, contents));
  absl::Status renamed = Rename(temporary, path, force);
  if (!renamed.ok()) unlink(temporary.c_str());
  return renamed;
}

}  // namespace protond::cli
