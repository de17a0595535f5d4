#include "cli/run_command.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "client-lib/control/daemon_autostart.h"
#include "client-lib/cpp/client.h"
#include "common/mode/session_mode.h"
#include "common/paths/own_path.h"
#include "common/process/spawn.h"
#include "common/text/printable_text.h"
#include "common/text/session_name.h"

namespace protond::cli {
namespace {

pid_t g_child = 0;

void ForwardSignal(int signal_number) {
  if (g_child > 0) kill(g_child, signal_number);
}

// The folder that holds the protond Python package: PROTOND_PYTHON_DIR, else ../python beside
// protonctl's folder (a bundle's bin/ and python/; the build tree links build/python to the
// source).
absl::StatusOr<std::string> FindPythonPackage() {
  std::error_code error;
  std::filesystem::path folder;
  if (const char* dir = std::getenv("PROTOND_PYTHON_DIR"); dir != nullptr && *dir != '\0') {
    folder = std::filesystem::absolute(dir, error);
  } else {
    folder = std::filesystem::read_symlink("/proc/self/exe", error).parent_path() / "../python";
  }
  folder = folder.lexically_normal();
  if (!std::filesystem::exists(folder / "protond/as_proton/sitecustomize.py", error)) {
    return absl::NotFoundError(absl::StrCat(
        "--as-proton needs the protond Python package, which is not in ", folder.string(),
        " (protond/as_proton/sitecustomize.py is missing); set PROTOND_PYTHON_DIR to the folder "
        "that holds protond/"));
  }
  return folder.string();
}

void Prepend(process::Environment& environment, std::string_view name, const std::string& value) {
  const std::optional<std::string_view> old = environment.Get(name);
  environment.Set(name, old.has_value() && !old->empty() ? value + ":" + std::string(*old) : value);
}

// protonctl's environment, with the shim preloaded into the session when there is one.
process::Environment ProgramEnvironment(const RunOptions& options, const std::string& shim,
                                        uint64_t session_id, const std::string& python_package) {
  process::Environment environment = process::Environment::OfThisProcess();
  if (session_id != 0) {
    Prepend(environment, "LD_PRELOAD", shim);
    environment.Set("PROTOND_SOCKET", options.socket_path);
    environment.Set("PROTOND_SESSION", std::to_string(session_id));
    // Always set, so that a run inside another run does not pass the outer mode on.
    environment.Set("PROTOND_SESSION_MODE", options.mode);
  }
  if (options.as_proton) {
    // sitecustomize.py there aliases triton.profiler to protond.profiler, which loads the shim
    // protonctl preloaded (the same file, so the same library) to find this session.
    Prepend(environment, "PYTHONPATH", python_package);
    Prepend(environment, "PYTHONPATH", python_package + "/protond/as_proton");
    if (!shim.empty()) environment.Set("PROTOND_SHIM", shim);
    // As with Proton, what the script does before its proton.start() is not recorded: start()
    // resumes the session.
    if (session_id != 0) environment.Set("PROTOND_SESSION_PAUSED", "1");
  }
  return environment;
}

// The program as a shell would run it (found in PATH, with protonctl's descriptors and signal
// handling), in the environment above.
absl::StatusOr<pid_t> StartProgram(const RunOptions& options, const std::string& shim,
                                   uint64_t session_id, const std::string& python_package) {
  process::SpawnOptions spawn;
  spawn.search_path = true;
  spawn.environment = ProgramEnvironment(options, shim, session_id, python_package);
  return process::Spawn(options.argv, spawn);
}

int WaitForChild(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// The daemon may be restarting: retry for a while before giving up on the session.
absl::StatusOr<v1::Session> StopWithRetry(client::Client& client, uint64_t session_id) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    absl::StatusOr<v1::Session> session = client.StopSession(session_id);
    if (session.ok() || !absl::IsUnavailable(session.status()) ||
        std::chrono::steady_clock::now() > give_up) {
      return session;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

uint64_t StartSession(const RunOptions& options, client::Client& client, const std::string& shim) {
  if (shim.empty()) {
    std::fprintf(stderr,
                 "protonctl: libprotond_shim.so not found next to protonctl or in ../lib (set "
                 "PROTOND_SHIM); running %s without profiling\n",
                 options.argv[0].c_str());
    return 0;
  }
  const std::string name = options.session_name.empty()
                               ? std::filesystem::path(options.argv[0]).filename().string()
                               : options.session_name;
  // As a program's own session start does: with no daemon at the socket, start one.
  absl::StatusOr<std::string> started =
      client::EnsureDaemon(options.socket_path, /*may_start=*/true);
  if (!started.ok()) {
    std::fprintf(stderr, "protonctl: %s\nprotonctl: running %s without profiling\n",
                 std::string(started.status().message()).c_str(), options.argv[0].c_str());
    return 0;
  }
  if (!started->empty()) std::fprintf(stderr, "protonctl: %s\n", started->c_str());
  absl::StatusOr<v1::Session> session = client.StartSession(
      name, options.trace ? v1::Session::TRACE : v1::Session::TREE, options.mode);
  if (!session.ok()) {
    std::fprintf(stderr, "protonctl: %s\nprotonctl: running %s without profiling\n",
                 std::string(session.status().message()).c_str(), options.argv[0].c_str());
    return 0;
  }
  return session->id();
}

// A program's name never starts with '-': a program named so is run as `run -- ./-x`.
bool IsOption(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

absl::Status UnknownOption(const std::string& option, bool has_value) {
  const bool takes_value = option == "--name" || option == "--data" || option == "--mode";
  if (takes_value && !has_value) {
    return absl::InvalidArgumentError(absl::StrCat(option, " needs a value"));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown option '", option, "'"));
}

}  // namespace

absl::StatusOr<RunOptions> ParseRunArgs(const std::vector<std::string>& args) {
  RunOptions options;
  size_t i = 0;
  for (; i < args.size() && args[i] != "--"; ++i) {
    const bool has_value = i + 1 < args.size();
    if (args[i] == "-h" || args[i] == "--help") {
      options.help = true;
      return options;
    } else if (args[i] == "--name" && has_value) {
      options.session_name = args[++i];
      if (absl::Status name = text::CheckSessionName(options.session_name); !name.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("--name: ", name.message()));
      }
    } else if (args[i] == "--as-proton") {
      options.as_proton = true;
    } else if (args[i] == "--data" && has_value) {
      const std::string& data = args[++i];
      if (data != "tree" && data != "trace") {
        return absl::InvalidArgumentError("--data is tree or trace, not '" + data + "'");
      }
      options.trace = data == "trace";
    } else if (args[i] == "--mode" && has_value) {
      absl::StatusOr<mode::SessionMode> mode = mode::ParseSessionMode(args[++i]);
      if (!mode.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("--mode: ", mode.status().message()));
      }
      options.mode = mode::SessionModeText(*mode);
    } else if (IsOption(args[i])) {
      return UnknownOption(args[i], has_value);
    } else {
      break;
    }
  }
  if (i < args.size() && args[i] == "--") ++i;
  options.argv.assign(args.begin() + static_cast<long>(i), args.end());
  if (options.argv.empty()) {
    return absl::InvalidArgumentError(
        "the program to run is missing: protonctl run [OPTIONS] -- PROGRAM [ARGS...]");
  }
  return options;
}

int RunCommand(const RunOptions& options) {
  std::string python_package;
  if (options.as_proton) {
    absl::StatusOr<std::string> found = FindPythonPackage();
    if (!found.ok()) {
      std::fprintf(stderr, "protonctl: %s\n", std::string(found.status().message()).c_str());
      return 1;
    }
    python_package = *found;
  }
  client::Client client(options.socket_path, std::chrono::seconds(10));
  const std::string shim = paths::InstalledShimPath();
  const uint64_t session_id = StartSession(options, client, shim);
  const absl::StatusOr<pid_t> child = StartProgram(options, shim, session_id, python_package);
  // As a shell says it: a program that cannot run exits 127, and the session still stops.
  int exit_code = 127;
  if (child.ok()) {
    g_child = *child;
    signal(SIGINT, ForwardSignal);
    signal(SIGTERM, ForwardSignal);
    signal(SIGQUIT, ForwardSignal);
    exit_code = WaitForChild(*child);
  } else {
    std::fprintf(stderr, "protonctl: %s\n", std::string(child.status().message()).c_str());
  }
  if (session_id == 0) return exit_code;
  absl::StatusOr<v1::Session> session = StopWithRetry(client, session_id);
  if (!session.ok()) {
    std::fprintf(stderr, "protonctl: session %llu could not be stopped: %s\n",
                 static_cast<unsigned long long>(session_id),
                 std::string(session.status().message()).c_str());
    return exit_code;
  }
  std::fprintf(stderr,
               "protonctl: session %llu (%s): %llu records, %llu dropped; "
               "show it with: protonctl tree %llu\n",
               static_cast<unsigned long long>(session_id),
               text::PrintableText(session->name()).c_str(),
               static_cast<unsigned long long>(session->records()),
               static_cast<unsigned long long>(session->dropped_records()),
               static_cast<unsigned long long>(session_id));
  // A problem may quote a name the program chose: shown, not obeyed by the terminal.
  for (const std::string& problem : session->problems()) {
    std::fprintf(stderr, "protonctl: problem: %s\n", text::PrintableText(problem).c_str());
  }
  return exit_code;
}

}  // namespace protond::cli
