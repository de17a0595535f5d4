// Starting a program: the one place that sets up a child process (its stdin, stdout and stderr,
// the descriptors it inherits, its signal mask and handling, its session and environment), for
// protond (nvdisasm), protonctl (run, --hosts) and the control library (daemon autostart).
//
// posix_spawn, never fork: the child runs no code of this process before exec, so a
// multi-threaded program (gRPC's threads, an application that loaded the control library) may
// spawn from any thread. Everything is prepared in the parent before the call. Depends on nothing
// of ours, so that any part may use it.
#ifndef PROTOND_COMMON_PROCESS_SPAWN_H_
#define PROTOND_COMMON_PROCESS_SPAWN_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace protond::process {

// A child's environment: "NAME=value" entries in order, as environ holds them.
class Environment {
 public:
  // A copy of this process's environ.
  static Environment OfThisProcess();

  // The value of the first `name` entry; nullopt when there is none.
  std::optional<std::string_view> Get(std::string_view name) const;
  // Replaces the first `name` entry in place, else appends one (as setenv does).
  void Set(std::string_view name, std::string_view value);
  // Removes every `name` entry.
  void Unset(std::string_view name);

  const std::vector<std::string>& entries() const { return entries_; }

 private:
  std::vector<std::string> entries_;
};

// What the child gets. The defaults are what fork and exec would give it: this process's stdin,
// stdout, stderr, descriptors (those not close-on-exec), signal mask, ignored signals, session and
// environment.
struct SpawnOptions {
  bool stdin_from_dev_null = false;
  // Descriptors that become the child's stdout and stderr; -1 keeps this process's.
  int stdout_fd = -1;
  int stderr_fd = -1;
  // When not empty, the child's stdout and stderr both append to this file (created 0600 when
  // missing), in place of stdout_fd and stderr_fd. The child opens it: an error names the program.
  std::string output_file;
  // Closes every descriptor from 3 up in the child.
  bool close_other_fds = false;
  // An empty signal mask and every signal's default handling (a daemon that blocks SIGTERM and
  // ignores SIGPIPE would pass both on).
  bool default_signals = false;
  // A session of its own (setsid): no controlling terminal, no signals from the caller's.
  bool new_session = false;
  // argv[0] without a '/' is looked up in PATH, and a file that is not a program runs with
  // /bin/sh, both as execvp does.
  bool search_path = false;
  // The child's environment; nullopt: this process's.
  std::optional<Environment> environment;
};

// Starts `argv` (argv[0] the program) and returns its pid, for the caller to wait for. The error
// names the program and the reason: "cannot run /usr/bin/nvdisasm: No such file or directory"
// (the status code from errno).
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const SpawnOptions& options);

}  // namespace protond::process

#endif  // PROTOND_COMMON_PROCESS_SPAWN_H_
