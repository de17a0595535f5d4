// Test-only: what the loader's tests load (entry_library.cc) and into what (attach_target.cc):
// paths from CMake, and a target program started as a child of the test with its stdin and
// stdout on pipes, to load a library into and then see how it ended.
#ifndef PROTOND_DAEMON_ATTACH_TESTING_TARGETS_H_
#define PROTOND_DAEMON_ATTACH_TESTING_TARGETS_H_

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/attach/remote_loader.h"
#include "gtest/gtest.h"

extern char** environ;

namespace protond::attach::testing {

constexpr char kTarget[] = PROTOND_ATTACH_TARGET;
constexpr char kStaticTarget[] = PROTOND_ATTACH_STATIC_TARGET;
constexpr char kEntryLibrary[] = PROTOND_ATTACH_ENTRY_LIBRARY;
constexpr int kEntryReturns = 4242;  // entry_library.cc

// A load of the test library whose ENTRY appends its argument to the file `record`, and sends
// the thread it runs on SIGUSR1 when `flag` is "|signal", SIGSTOP when it is "|stop".
inline RemoteLoad TestLoad(const std::string& record, absl::string_view flag = "") {
  return RemoteLoad{.library_path = kEntryLibrary,
                    .entry_symbol = "protond_attach_test_entry",
                    .entry_argument = absl::StrCat(record, flag),
                    .timeout = absl::Seconds(5)};
}

// A fresh path in the test's temporary directory.
inline std::string RecordPath(absl::string_view name) {
  static int next = 0;
  return absl::StrCat(::testing::TempDir(), "protond_attach_", getpid(), "_", name, "_", next++);
}

// The file's contents ("" when there is none), and the file removed.
inline std::string TakeRecord(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(path.c_str());
  return text;
}

class TargetProcess {
 public:
  // `program mode`; nullptr when it cannot start.
  static std::unique_ptr<TargetProcess> Start(const std::string& program, const std::string& mode) {
    int in[2];
    int out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return nullptr;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    const char* argv[] = {program.c_str(), mode.c_str(), nullptr};
    pid_t pid = 0;
    const int error =
        posix_spawn(&pid, program.c_str(), &actions, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    if (error != 0) {
      close(in[1]);
      close(out[0]);
      return nullptr;
    }
    return std::unique_ptr<TargetProcess>(new TargetProcess(pid, in[1], out[0]));
  }

  TargetProcess(const TargetProcess&) = delete;
  TargetProcess& operator=(const TargetProcess&) = delete;
  ~TargetProcess() {
    if (!reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    CloseStdin();
    close(stdout_);
  }

  pid_t pid() const { return pid_; }

  // Reads stdout until the line `line` has come; false at its end or after 10 s.
  bool WaitForLine(absl::string_view line) {
    const std::string wanted = std::string(line) + "\n";
    while (output_.find(wanted) == std::string::npos) {
      if (!ReadSome()) return false;
    }
    output_.erase(0, output_.find(wanted) + wanted.size());
    return true;
  }

  void WriteStdin(absl::string_view data) { (void)!write(stdin_, data.data(), data.size()); }
  void CloseStdin() {
    if (stdin_ >= 0) close(stdin_);
    stdin_ = -1;
  }

  struct Exit {
    std::string output;  // what came after the lines waited for
    int status = -1;     // waitpid's; -1 when another waiter (a tracer) reaped it
  };
  // Reads stdout to its end (at most 10 s) and reaps the process.
  Exit Wait() {
    while (ReadSome()) {
    }
    Exit exit;
    exit.output = output_;
    if (waitpid(pid_, &exit.status, 0) != pid_) exit.status = -1;
    reaped_ = true;
    return exit;
  }

 private:
  TargetProcess(pid_t pid, int stdin_fd, int stdout_fd)
      : pid_(pid), stdin_(stdin_fd), stdout_(stdout_fd) {}

  // False at the end of stdout, or when nothing came for 10 s.
  bool ReadSome() {
    pollfd ready = {stdout_, POLLIN, 0};
    if (poll(&ready, 1, 10'000) != 1) return false;
    char buffer[4096];
    const ssize_t got = read(stdout_, buffer, sizeof(buffer));
    if (got <= 0) return false;
    output_.append(buffer, got);
    return true;
  }

  pid_t pid_;
  int stdin_;
  int stdout_;
  std::string output_;
  bool reaped_ = false;
};

// `program mode`, once it has said "ready"; nullptr when it did not.
inline std::unique_ptr<TargetProcess> StartReady(const char* program, const std::string& mode) {
  std::unique_ptr<TargetProcess> target = TargetProcess::Start(program, mode);
  if (target != nullptr && !target->WaitForLine("ready")) return nullptr;
  return target;
}

// Waits for the target's end: what it printed after "ready" must be `output`, its exit code 0.
inline void ExpectExit(TargetProcess& target, const std::string& output) {
  const TargetProcess::Exit exit = target.Wait();
  EXPECT_EQ(exit.output, output);
  EXPECT_TRUE(WIFEXITED(exit.status) && WEXITSTATUS(exit.status) == 0) << exit.status;
}

}  // namespace protond::attach::testing

#endif  // PROTOND_DAEMON_ATTACH_TESTING_TARGETS_H_
