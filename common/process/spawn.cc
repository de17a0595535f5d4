#include "common/process/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/status/status.h"

extern char** environ;

namespace protond::process {
namespace {

constexpr char kShell[] = "/bin/sh";
constexpr char kDefaultPath[] = "/bin:/usr/bin";  // glibc's execvp without PATH

bool HasName(std::string_view entry, std::string_view name) {
  return entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=';
}

// posix_spawn takes non-const strings; it copies nothing and changes nothing.
std::vector<char*> Pointers(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// The descriptor set-up of `options`, done in the child before exec.
class FileActions {
 public:
  explicit FileActions(const SpawnOptions& options) {
    posix_spawn_file_actions_init(&actions_);
    if (options.stdin_from_dev_null) {
      Add(posix_spawn_file_actions_addopen(&actions_, STDIN_FILENO, "/dev/null", O_RDONLY, 0));
    }
    if (!options.output_file.empty()) {
      Add(posix_spawn_file_actions_addopen(&actions_, STDOUT_FILENO, options.output_file.c_str(),
                                           O_WRONLY | O_CREAT | O_APPEND, 0600));
      Add(posix_spawn_file_actions_adddup2(&actions_, STDOUT_FILENO, STDERR_FILENO));
    } else {
      if (options.stdout_fd >= 0) {
        Add(posix_spawn_file_actions_adddup2(&actions_, options.stdout_fd, STDOUT_FILENO));
      }
      if (options.stderr_fd >= 0) {
        Add(posix_spawn_file_actions_adddup2(&actions_, options.stderr_fd, STDERR_FILENO));
      }
    }
    if (options.close_other_fds) {
      Add(posix_spawn_file_actions_addclosefrom_np(&actions_, STDERR_FILENO + 1));
    }
  }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  ~FileActions() { posix_spawn_file_actions_destroy(&actions_); }

  const posix_spawn_file_actions_t* get() const { return &actions_; }
  int error() const { return error_; }

 private:
  void Add(int error) {
    if (error_ == 0) error_ = error;
  }

  posix_spawn_file_actions_t actions_;
  int error_ = 0;
};

// The signal and session set-up of `options`.
class Attributes {
 public:
  explicit Attributes(const SpawnOptions& options) {
    posix_spawnattr_init(&attributes_);
    short flags = 0;
    if (options.default_signals) {
      sigset_t signals;
      sigemptyset(&signals);
      posix_spawnattr_setsigmask(&attributes_, &signals);
      sigfillset(&signals);
      posix_spawnattr_setsigdefault(&attributes_, &signals);
      flags |= POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    }
    if (options.new_session) flags |= POSIX_SPAWN_SETSID;
    posix_spawnattr_setflags(&attributes_, flags);
  }
  Attributes(const Attributes&) = delete;
  Attributes& operator=(const Attributes&) = delete;
  ~Attributes() { posix_spawnattr_destroy(&attributes_); }

  const posix_spawnattr_t* get() const { return &attributes_; }

 private:
  posix_spawnattr_t attributes_;
};

bool IsExecutableFile(const std::string& path) {
  struct stat file;
  return stat(path.c_str(), &file) == 0 && !S_ISDIR(file.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

// The file posix_spawnp ran for `program`: the first executable one in PATH (an empty entry is
// the working directory, as for execvp).
std::string FoundInPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = getenv("PATH");
  const std::string_view dirs = path != nullptr ? path : kDefaultPath;
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string_view::npos) end = dirs.size();
    const std::string_view dir = dirs.substr(start, end - start);
    std::string candidate = dir.empty() ? program : std::string(dir) + "/" + program;
    if (IsExecutableFile(candidate)) return candidate;
    start = end + 1;
  }
  return program;
}

}  // namespace

Environment Environment::OfThisProcess() {
  Environment environment;
  for (char** entry = environ; *entry != nullptr; ++entry)
    environment.entries_.emplace_back(*entry);
  return environment;
}

std::optional<std::string_view> Environment::Get(std::string_view name) const {
  for (const std::string& entry : entries_) {
    if (HasName(entry, name)) return std::string_view(entry).substr(name.size() + 1);
  }
  return std::nullopt;
}

void Environment::Set(std::string_view name, std::string_view value) {
  std::string entry = std::string(name) + "=" + std::string(value);
  for (std::string& existing : entries_) {
    if (HasName(existing, name)) {
      existing = std::move(entry);
      return;
    }
  }
  entries_.push_back(std::move(entry));
}

void Environment::Unset(std::string_view name) {
  std::erase_if(entries_, [name](const std::string& entry) { return HasName(entry, name); });
}

absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty()) return absl::InvalidArgumentError("no program to run");
  const FileActions actions(options);
  const Attributes attributes(options);
  std::vector<char*> args = Pointers(argv);
  std::vector<char*> environment;
  if (options.environment.has_value()) environment = Pointers(options.environment->entries());
  char* const* envp = options.environment.has_value() ? environment.data() : environ;
  pid_t pid = -1;
  int error = actions.error();
  if (error == 0) {
    error = options.search_path
                ? posix_spawnp(&pid, args[0], actions.get(), attributes.get(), args.data(), envp)
                : posix_spawn(&pid, args[0], actions.get(), attributes.get(), args.data(), envp);
  }
  // glibc's posix_spawnp, unlike execvp, leaves a script without "#!" unrun.
  if (error == ENOEXEC && options.search_path) {
    std::vector<std::string> shell_argv = {kShell, FoundInPath(argv[0])};
    shell_argv.insert(shell_argv.end(), argv.begin() + 1, argv.end());
    std::vector<char*> shell_args = Pointers(shell_argv);
    error = posix_spawn(&pid, kShell, actions.get(), attributes.get(), shell_args.data(), envp);
  }
  if (error != 0) return absl::ErrnoToStatus(error, "cannot run " + argv[0]);
  return pid;
}

}  // namespace protond::process
