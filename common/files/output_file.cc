#include "common/files/output_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/files/file_type.h"
#include "common/status/status_macros.h"

namespace protond::files {
namespace {

// What is at the path, for what WriteOutputFile does with it.
enum class Target {
  kNothing,  // a new file is created
  kFile,     // a regular file, a link to one, or a link to nothing: replaced only on request
  kStream,   // a character device or FIFO, or a link to one: written into
};

absl::Status ErrnoError(const std::string& what, const std::string& path, int error) {
  return absl::UnavailableError(absl::StrCat("cannot ", what, " ", path, ": ", strerror(error)));
}

absl::Status Exists(const std::string& path) {
  return absl::AlreadyExistsError(absl::StrCat(path, " exists"));
}

absl::Status Refused(const std::string& path, mode_t mode) {
  return absl::FailedPreconditionError(
      absl::StrCat(path, " is ", FileTypeName(mode),
                   "; only a regular file, a character device or a FIFO is written"));
}

bool IsStream(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode); }

// The descriptor of a standard stream named by `path`, else -1.
int StandardStream(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  return -1;
}

// What the path holds: stat() follows a link to what it points at (a device, say), lstat() tells
// a link to nothing from nothing at all.
absl::StatusOr<Target> Inspect(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    if (errno != ENOENT) return ErrnoError("write", path, errno);
    return lstat(path.c_str(), &info) == 0 ? Target::kFile : Target::kNothing;
  }
  if (S_ISREG(info.st_mode)) return Target::kFile;
  if (IsStream(info.st_mode)) return Target::kStream;
  return Refused(path, info.st_mode);
}

absl::Status WriteAll(int fd, std::string_view contents, const std::string& path) {
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("write", path, errno);
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// Writes into the device or FIFO at `path`: opened without O_CREAT or O_TRUNC, and checked once
// open, since what the path holds may have changed since Inspect looked.
absl::Status WriteIntoStream(const std::string& path, std::string_view contents) {
  const int fd = open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open", path, errno);
  struct stat opened;
  absl::Status written;
  if (fstat(fd, &opened) != 0) {
    written = ErrnoError("write", path, errno);
  } else if (!IsStream(opened.st_mode)) {
    written = absl::AbortedError(absl::StrCat(path, " became ", FileTypeName(opened.st_mode),
                                              " while it was opened; it was not written"));
  } else {
    written = WriteAll(fd, contents, path);
  }
  if (close(fd) != 0 && written.ok()) written = ErrnoError("write", path, errno);
  return written;
}

// `path` with a random suffix: nobody can plant a link at the name in advance, and O_EXCL would
// refuse one anyway.
absl::StatusOr<std::string> TemporaryName(const std::string& path) {
  uint64_t random = 0;
  if (getrandom(&random, sizeof(random), 0) != sizeof(random)) {
    return ErrnoError("make a temporary name for", path, errno);
  }
  return absl::StrCat(path, ".tmp-", absl::Hex(random, absl::kZeroPad16));
}

// A new file beside `path` holding `contents`; returns its name.
absl::StatusOr<std::string> WriteTemporaryFile(const std::string& path, std::string_view contents) {
  ASSIGN_OR_RETURN(const std::string temporary, TemporaryName(path));
  // 0666 before the umask: the permissions any other new file of the user gets.
  const int fd =
      open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return ErrnoError("write", path, errno);
  absl::Status written = WriteAll(fd, contents, path);
  if (close(fd) != 0 && written.ok()) written = ErrnoError("write", path, errno);
  if (!written.ok()) {
    unlink(temporary.c_str());
    return written;
  }
  return temporary;
}

// A rename within one directory, so atomic. With kReplace, whatever appeared at `path` since
// Inspect looked is replaced as well: rename() cannot be told to replace regular files only.
absl::Status MoveIntoPlace(const std::string& temporary, const std::string& path,
                           ExistingFile existing) {
  const unsigned flags = existing == ExistingFile::kReplace ? 0 : RENAME_NOREPLACE;
  if (renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), flags) == 0) {
    return absl::OkStatus();
  }
  return errno == EEXIST ? Exists(path) : ErrnoError("rename a file to", path, errno);
}

}  // namespace

absl::Status CheckOutputPath(const std::string& path, ExistingFile existing) {
  if (StandardStream(path) >= 0) return absl::OkStatus();
  ASSIGN_OR_RETURN(const Target target, Inspect(path));
  if (target == Target::kFile && existing == ExistingFile::kKeep) return Exists(path);
  return absl::OkStatus();
}

absl::Status WriteOutputFile(const std::string& path, std::string_view contents,
                             ExistingFile existing) {
  if (const int stream = StandardStream(path); stream >= 0) {
    return WriteAll(stream, contents, path);
  }
  ASSIGN_OR_RETURN(const Target target, Inspect(path));
  if (target == Target::kStream) return WriteIntoStream(path, contents);
  if (target == Target::kFile && existing == ExistingFile::kKeep) return Exists(path);
  ASSIGN_OR_RETURN(const std::string temporary, WriteTemporaryFile(path, contents));
  absl::Status moved = MoveIntoPlace(temporary, path, existing);
  if (!moved.ok()) unlink(temporary.c_str());
  return moved;
}

}  // namespace protond::files
