#include "client-lib/control/daemon_autostart.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client-lib/cpp/socket_probe.h"
#include "common/paths/daemon_paths.h"
#include "common/paths/own_path.h"
#include "common/process/spawn.h"
#include "common/status/status_macros.h"

namespace protond::client {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kReadyTimeout = std::chrono::seconds(5);   // protond --detach: until it listens
constexpr auto kWinnerTimeout = std::chrono::seconds(2);  // another process's daemon
constexpr auto kPollInterval = std::chrono::milliseconds(5);

// The daemon must not profile itself: no preloaded shim, no injection, no session.
process::Environment DaemonEnvironment() {
  process::Environment environment = process::Environment::OfThisProcess();
  for (const char* name : {"LD_PRELOAD", "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH",
                           "PROTOND_SESSION", "PROTOND_DISABLE"}) {
    environment.Unset(name);
  }
  environment.Set("PROTOND_DISABLE", "1");
  return environment;
}

// Runs `argv` with stdin from /dev/null, stdout and stderr appended to `log`, no other
// descriptor of this process, default signal handling and a session of its own.
absl::StatusOr<pid_t> SpawnDetached(const std::vector<std::string>& argv, const std::string& log) {
  process::SpawnOptions options;
  options.stdin_from_dev_null = true;
  options.output_file = log;
  options.close_other_fds = true;
  options.default_signals = true;
  options.new_session = true;
  options.environment = DaemonEnvironment();
  absl::StatusOr<pid_t> pid = process::Spawn(argv, options);
  if (!pid.ok()) return absl::UnavailableError(pid.status().message());
  return pid;
}

// The exit status of child `pid` (128+N when killed by signal N; -1 when it cannot be known,
// as when the program ignores SIGCHLD), or nothing if it still runs after `timeout`; then a
// thread reaps it later, so that it does not linger as a zombie.
std::optional<int> WaitForExit(pid_t pid, Clock::duration timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    int status = 0;
    const pid_t waited = waitpid(pid, &status, WNOHANG);
    if (waited == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (waited < 0 && errno != EINTR) return -1;
    std::this_thread::sleep_for(kPollInterval);
  }
  std::thread([pid] { waitpid(pid, nullptr, 0); }).detach();
  return std::nullopt;
}

bool AnswersWithin(const std::string& socket_path, Clock::duration timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!client::ProbeSocket(socket_path).Accepts()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPollInterval);
  }
  return true;
}

std::string LastLine(const std::string& path) {
  std::ifstream in(path);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

bool AutostartEnabled() {
  const char* value = std::getenv("PROTOND_AUTOSTART");
  return value == nullptr || std::string_view(value) != "0";
}

absl::StatusOr<std::string> StartDaemon(const std::string& socket_path) {
  // Beside this code's own file, never a bare name: posix_spawn would take that from the working
  // directory, which runs whatever ./protond it holds.
  const std::string binary = paths::SiblingLibraryPath("protond");
  if (!binary.starts_with('/')) {
    return absl::UnavailableError("cannot find protond: where this program is is not known");
  }
  const std::string state_dir = paths::StateDirForSocket(socket_path);
  std::error_code error;
  std::filesystem::create_directories(state_dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot create the state directory ", state_dir, ": ", error.message()));
  }
  const std::string log = state_dir + "/protond.log";
  ASSIGN_OR_RETURN(
      const pid_t pid,
      SpawnDetached({binary, "--detach", "--socket", socket_path, "--state-dir", state_dir}, log));
  const std::optional<int> status = WaitForExit(pid, kReadyTimeout);
  if (status == 0) {
    return absl::StrCat("started protond at ", socket_path, " (its store and log: ", state_dir,
                        ")");
  }
  // Another process may have started the daemon first: this one then gave up on the lock.
  if (AnswersWithin(socket_path, kWinnerTimeout)) return "";
  if (!status.has_value()) {
    return absl::UnavailableError(absl::StrCat(binary, " did not start listening within ",
                                               kReadyTimeout / std::chrono::seconds(1),
                                               " s (its log: ", log, ")"));
  }
  const std::string last_words = LastLine(log);
  return absl::UnavailableError(absl::StrCat(binary, " exited with status ", *status,
                                             last_words.empty() ? "" : ": " + last_words,
                                             " (its log: ", log, ")"));
}

absl::StatusOr<std::string> EnsureDaemon(const std::string& socket_path, bool may_start) {
  const client::SocketProbe probe = client::ProbeSocket(socket_path);
  if (!probe.NoDaemon()) return "";
  const std::string no_daemon = client::DescribeSilentSocket(socket_path, probe);
  if (!may_start) return absl::UnavailableError(no_daemon);
  if (!AutostartEnabled()) {
    return absl::UnavailableError(no_daemon + "; PROTOND_AUTOSTART=0, so none was started");
  }
  absl::StatusOr<std::string> started = StartDaemon(socket_path);
  if (!started.ok()) {
    return absl::UnavailableError(
        absl::StrCat(no_daemon, ", and starting one failed: ", started.status().message()));
  }
  return started;
}

}  // namespace protond::client
