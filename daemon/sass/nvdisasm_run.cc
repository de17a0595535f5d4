// Runs nvdisasm on a cubin: the cubin in a private temporary file, nvdisasm spawned without a
// shell, its stdout and stderr read through pipes.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/process/spawn.h"
#include "common/status/status_macros.h"
#include "daemon/sass/sass_text.h"

namespace protond::sass {
namespace {

constexpr char kCudaNvdisasm[] = "/usr/local/cuda/bin/nvdisasm";

// A file descriptor, closed at destruction.
class OwnedFd {
 public:
  OwnedFd() = default;
  explicit OwnedFd(int fd) : fd_(fd) {}
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() { Close(); }

  int get() const { return fd_; }
  void Reset(int fd) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }
  void Close() { Reset(-1); }

 private:
  int fd_ = -1;
};

// The cubin in a file that only this user may read, removed at destruction: on every return
// from RunNvdisasm, nvdisasm's failures included.
class TempCubin {
 public:
  TempCubin() = default;
  TempCubin(const TempCubin&) = delete;
  TempCubin& operator=(const TempCubin&) = delete;
  ~TempCubin() {
    if (!path_.empty()) unlink(path_.c_str());
  }

  absl::Status Write(std::span<const uint8_t> cubin);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

absl::Status TempCubin::Write(std::span<const uint8_t> cubin) {
  const char* tmpdir = getenv("TMPDIR");
  const std::string dir = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  std::string pattern = dir + "/protond_cubin_XXXXXX";
  // Close-on-exec, so that no program another thread starts keeps the file open.
  OwnedFd fd(mkostemp(pattern.data(), O_CLOEXEC));
  if (fd.get() < 0) {
    return absl::ErrnoToStatus(errno, "cannot create a temporary file for the cubin in " + dir);
  }
  path_ = pattern;
  for (size_t done = 0; done < cubin.size();) {
    const ssize_t written = write(fd.get(), cubin.data() + done, cubin.size() - done);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return absl::ErrnoToStatus(errno, "cannot write the cubin to " + path_);
    done += static_cast<size_t>(written);
  }
  return absl::OkStatus();
}

// Close-on-exec on both ends: a program that another thread starts must not hold a write end,
// or the reads here would never see the end of nvdisasm's output.
absl::Status MakePipe(OwnedFd& read_end, OwnedFd& write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "cannot create a pipe");
  read_end.Reset(fds[0]);
  write_end.Reset(fds[1]);
  return absl::OkStatus();
}

// Starts `nvdisasm -c cubin_path` with stdin from /dev/null, stdout and stderr to the given
// descriptors, no other descriptor of this process, and the default signal mask and handlers
// (the daemon blocks SIGTERM and ignores SIGPIPE, which nvdisasm would inherit).
absl::StatusOr<pid_t> Spawn(const std::string& nvdisasm, const std::string& cubin_path,
                            int stdout_fd, int stderr_fd) {
  process::SpawnOptions options;
  options.stdin_from_dev_null = true;
  options.stdout_fd = stdout_fd;
  options.stderr_fd = stderr_fd;
  options.close_other_fds = true;
  options.default_signals = true;
  return process::Spawn({nvdisasm, "-c", cubin_path}, options);
}

// Appends what `fd` has to `text`; closes `fd` at the end of the stream.
absl::Status ReadAvailable(OwnedFd& fd, std::string& text) {
  char buffer[64 * 1024];
  const ssize_t got = read(fd.get(), buffer, sizeof(buffer));
  if (got > 0) text.append(buffer, static_cast<size_t>(got));
  if (got == 0) fd.Close();
  if (got < 0 && errno != EINTR) return absl::ErrnoToStatus(errno, "cannot read nvdisasm's output");
  return absl::OkStatus();
}

// Reads both pipes to their end, whichever has data first: nvdisasm blocked on a full stderr
// pipe would never finish its stdout, nor the other way round.
absl::Status ReadBoth(OwnedFd& out, std::string& out_text, OwnedFd& err, std::string& err_text,
                      const NvdisasmLimits& limits) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(limits.timeout_ms);
  while (out.get() >= 0 || err.get() >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return absl::DeadlineExceededError(
          absl::StrCat("nvdisasm did not finish within ", limits.timeout_ms, " ms"));
    }
    // poll skips the negative descriptor of a pipe already at its end.
    pollfd fds[2] = {{out.get(), POLLIN, 0}, {err.get(), POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(left.count())) < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, "cannot wait for nvdisasm's output");
    }
    if (fds[0].revents != 0) RETURN_IF_ERROR(ReadAvailable(out, out_text));
    if (fds[1].revents != 0) RETURN_IF_ERROR(ReadAvailable(err, err_text));
    if (out_text.size() + err_text.size() > limits.max_output_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("nvdisasm printed more than ", limits.max_output_bytes, " bytes"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int> WaitForExit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return absl::ErrnoToStatus(errno, "cannot wait for nvdisasm");
  }
  return status;
}

bool IsExecutableFile(const std::string& path) {
  struct stat file;
  return stat(path.c_str(), &file) == 0 && S_ISREG(file.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

absl::StatusOr<std::string> RunNvdisasm(const std::string& nvdisasm, std::span<const uint8_t> cubin,
                                        const NvdisasmLimits& limits) {
  TempCubin file;
  RETURN_IF_ERROR(file.Write(cubin));
  OwnedFd out_read, out_write, err_read, err_write;
  RETURN_IF_ERROR(MakePipe(out_read, out_write));
  RETURN_IF_ERROR(MakePipe(err_read, err_write));
  ASSIGN_OR_RETURN(const pid_t pid, Spawn(nvdisasm, file.path(), out_write.get(), err_write.get()));
  // nvdisasm has its own copies; the pipes end only when no write end is left open.
  out_write.Close();
  err_write.Close();
  std::string out, err;
  const absl::Status read = ReadBoth(out_read, out, err_read, err, limits);
  // Not left running (nor as a zombie) when its output cannot be read.
  if (!read.ok()) kill(pid, SIGKILL);
  ASSIGN_OR_RETURN(const int status, WaitForExit(pid));
  RETURN_IF_ERROR(read);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return out;
  std::string failure = WIFEXITED(status)
                            ? absl::StrCat("nvdisasm failed (exit ", WEXITSTATUS(status), ")")
                            : absl::StrCat("nvdisasm failed (signal ", WTERMSIG(status), ")");
  const absl::string_view message = absl::StripAsciiWhitespace(err);
  if (!message.empty()) absl::StrAppend(&failure, ": ", message);
  return absl::UnknownError(failure);
}

std::optional<std::string> FindNvdisasm() {
  const char* chosen = getenv("PROTOND_NVDISASM");
  if (chosen != nullptr && IsExecutableFile(chosen)) return chosen;
  const char* path = getenv("PATH");
  // An empty entry would mean the current directory, which is no place for the daemon to take a
  // program from.
  for (absl::string_view dir :
       absl::StrSplit(path != nullptr ? path : "", ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/nvdisasm");
    if (IsExecutableFile(candidate)) return candidate;
  }
  if (IsExecutableFile(kCudaNvdisasm)) return kCudaNvdisasm;
  return std::nullopt;
}

}  // namespace protond::sass
