// protond: the profiling daemon. Serves the protond.v1 API on a unix socket and keeps sessions
// in an SQLite store under the state directory. See README.md and docs/.
#include <fcntl.h>
#include <malloc.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/files/output_file.h"
#include "common/paths/daemon_paths.h"
#include "common/paths/own_path.h"
#include "common/text/duration.h"
#include "common/text/scaled_number.h"
#include "daemon/always_on/history_retention.h"
#include "daemon/always_on/window_scheduler.h"
#include "daemon/metrics/metrics.h"
#include "daemon/metrics/metrics_server.h"
#include "daemon/server/socket_lock.h"
#include "daemon/server/tcp_server.h"
#include "daemon/server/token_file.h"
#include "daemon/server/unix_server.h"
#include "daemon/service/protond_service.h"
#include "daemon/store/store_lock.h"
#include "daemon/web/web_page.h"

namespace {

constexpr char kUsage[] =
    "usage: protond [--socket PATH] [--state-dir DIR] [--commit-interval-ms N] [--detach]\n"
    "               [--listen HOST:PORT --tokens FILE (--tls-cert FILE --tls-key FILE |\n"
    "                --insecure) [--web-listen HOST:PORT [--web-dir DIR]]]\n"
    "               [--metrics-listen HOST:PORT]\n"
    "               [--always-on [--always-on-window D] [--always-on-period D]\n"
    "                [--always-on-users U,...] [--always-on-jobs J,...]\n"
    "                [--always-on-command REGEX] [--history-max SIZE]\n"
    "                [--keep-windows D] [--keep-hourly D]] [--no-shim-loading]\n"
    "       protond --version | --help\n"
    "  --socket PATH        unix socket to serve (default: %s)\n"
    "  --state-dir DIR      where protond.db (and protond.pid) are kept, by one daemon at a time\n"
    "                       (default: %s)\n"
    "  --commit-interval-ms how often lanes are drained and committed (default: 100)\n"
    "  --detach             run on in the background, in a session of its own; the command\n"
    "                       returns once the daemon listens (0) or has failed (1)\n"
    "  --listen HOST:PORT   also serve the API over TCP to other machines (port 0: any free\n"
    "                       one), with TLS from --tls-cert and --tls-key (PEM files); each call\n"
    "                       needs a token of --tokens FILE (docs/cluster.md), read again on\n"
    "                       SIGHUP\n"
    "  --insecure           plain TCP instead of TLS, on a loopback address only\n"
    "  --web-listen HOST:PORT  also serve the web page at https://HOST:PORT/ (plain HTTP with\n"
    "                       --insecure, on a loopback address only): users sign in with a\n"
    "                       token of --tokens and see what it may see (docs/web.md)\n"
    "  --web-dir DIR        the page's files (default: <protond's dir>/../share/protond/web)\n"
    "  --metrics-listen HOST:PORT  serve Prometheus metrics at http://HOST:PORT/metrics (port\n"
    "                       0: any free one); plain HTTP without authentication\n"
    "  --always-on          profile every registered process in short windows, each kept as a\n"
    "                       session of its own; a job's ranks together (docs/always-on.md)\n"
    "  --always-on-window D how long each window lasts (default: 2s; 500ms, 2s, 1m, ...)\n"
    "  --always-on-period D how often a window starts, at multiples of D on the clock\n"
    "                       (default: 60s); longer than the window\n"
    "  --always-on-users U,...   only the processes of these users (names or uids)\n"
    "  --always-on-jobs J,...    only the processes of these jobs (SLURM_JOB_ID or pod)\n"
    "  --always-on-command REGEX only the processes whose command line matches (RE2)\n"
    "  --history-max SIZE   the most the windows may take in the store (default: 2GiB;\n"
    "                       500MiB, 2GiB, or bytes): past it the oldest are deleted, and\n"
    "                       windows that recorded nothing are never kept\n"
    "  --keep-windows D     how long windows stay whole after their clock hour (UTC) ended\n"
    "                       (default: 24h): then each process's or job's windows of an hour\n"
    "                       are merged into one tree\n"
    "  --keep-hourly D      how long those hours stay after their day (UTC) ended (default:\n"
    "                       14d): then a day's hours are merged into one tree\n"
    "  --no-shim-loading    never load the shim into a running process that has none\n"
    "                       (protonctl start --pid does, for a caller who may ptrace it:\n"
    "                       docs/attach.md)\n";

struct Flags {
  std::string socket;
  std::string state_dir;
  int commit_interval_ms = 100;
  bool detach = false;
  protond::server::TcpOptions tcp;   // served when tcp.listen is set
  protond::web::WebPageOptions web;  // served when web.listen is set
  std::string metrics_listen;        // HOST:PORT; "": no metrics endpoint
  bool always_on = false;
  protond::always_on::WindowPolicy always_on_policy;
  protond::always_on::RetentionPolicy retention;
  bool always_on_options = false;  // any --always-on-*, --history-* or --keep-* flag was given
  bool shim_loading = true;        // off with --no-shim-loading
};

int Usage(FILE* out, int code) {
  const auto defaults = protond::paths::DefaultDaemonPaths();
  std::fprintf(out, kUsage, defaults.socket.c_str(), defaults.state_dir.c_str());
  return code;
}

// A user name or a uid, as --always-on-users takes them.
bool ParseUser(const std::string& text, uint32_t& uid) {
  if (absl::SimpleAtoi(text, &uid)) return true;
  passwd entry;
  passwd* found = nullptr;
  char buffer[4096];
  if (getpwnam_r(text.c_str(), &entry, buffer, sizeof(buffer), &found) != 0 || found == nullptr) {
    return false;
  }
  uid = found->pw_uid;
  return true;
}

// The --always-on-*, --history-* or --keep-* flag `arg` with its `value`; false (and an error on
// stderr) when it is bad.
bool ParseAlwaysOnFlag(const std::string& arg, const std::string& value, Flags& flags) {
  protond::always_on::WindowPolicy& policy = flags.always_on_policy;
  const auto bad = [&](const std::string& why) {
    std::fprintf(stderr, "protond: bad %s '%s': %s\n", arg.c_str(), value.c_str(), why.c_str());
    return false;
  };
  flags.always_on_options = true;
  if (arg == "--always-on-window" || arg == "--always-on-period") {
    const absl::StatusOr<uint64_t> ms = protond::text::ParseDurationMs(value);
    if (!ms.ok()) return bad(std::string(ms.status().message()));
    (arg == "--always-on-window" ? policy.window : policy.period) = std::chrono::milliseconds(*ms);
    return true;
  }
  if (arg == "--always-on-users") {
    for (const absl::string_view user : absl::StrSplit(value, ',')) {
      uint32_t uid;
      if (!ParseUser(std::string(user), uid)) {
        return bad(absl::StrCat("'", user, "' is neither a uid nor a user of this node"));
      }
      policy.uids.push_back(uid);
    }
    return true;
  }
  if (arg == "--always-on-jobs") {
    for (const absl::string_view job : absl::StrSplit(value, ',')) {
      if (job.empty()) return bad("an empty job name");
      policy.jobs.emplace_back(job);
    }
    return true;
  }
  if (arg == "--history-max") {
    const absl::StatusOr<uint64_t> bytes = protond::text::ParseByteSize(value);
    if (!bytes.ok()) return bad(std::string(bytes.status().message()));
    flags.retention.history_max_bytes = *bytes;
    return true;
  }
  if (arg == "--keep-windows" || arg == "--keep-hourly") {
    const absl::StatusOr<uint64_t> ms = protond::text::ParseDurationMs(value);
    if (!ms.ok()) return bad(std::string(ms.status().message()));
    (arg == "--keep-windows" ? flags.retention.keep_windows : flags.retention.keep_hourly) =
        std::chrono::milliseconds(*ms);
    return true;
  }
  if (arg == "--always-on-command") {
    const absl::Status regex = protond::always_on::CheckCommandRegex(value);
    if (!regex.ok()) return bad(std::string(regex.message()));
    policy.command_regex = value;
    return true;
  }
  return bad("unknown option");
}

// Returns an exit code, or -1 to go on.
int ParseFlags(int argc, char** argv, Flags& flags) {
  const auto defaults = protond::paths::DefaultDaemonPaths();
  flags.socket = defaults.socket;
  flags.state_dir = defaults.state_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") return Usage(stdout, 0);
    if (arg == "--version") {
      std::printf("protond %s\n", PROTOND_VERSION);
      return 0;
    }
    if (arg == "--no-shim-loading") {
      flags.shim_loading = false;
      continue;
    }
    if (arg == "--detach" || arg == "--insecure" || arg == "--always-on") {
      (arg == "--detach"      ? flags.detach
       : arg == "--always-on" ? flags.always_on
                              : flags.tcp.insecure) = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "protond: unknown option or missing value: %s\n", arg.c_str());
      return Usage(stderr, 2);
    }
    const std::string value = argv[++i];
    if (arg == "--socket") {
      flags.socket = value;
    } else if (arg == "--state-dir") {
      flags.state_dir = value;
    } else if (arg == "--listen") {
      flags.tcp.listen = value;
    } else if (arg == "--tls-cert") {
      flags.tcp.tls_cert_path = value;
    } else if (arg == "--tls-key") {
      flags.tcp.tls_key_path = value;
    } else if (arg == "--tokens") {
      flags.tcp.tokens_path = value;
    } else if (arg == "--web-listen") {
      flags.web.listen = value;
    } else if (arg == "--web-dir") {
      flags.web.web_dir = value;
    } else if (arg == "--metrics-listen") {
      flags.metrics_listen = value;
    } else if (absl::StartsWith(arg, "--always-on-") || absl::StartsWith(arg, "--history-") ||
               absl::StartsWith(arg, "--keep-")) {
      if (!ParseAlwaysOnFlag(arg, value, flags)) return Usage(stderr, 2);
    } else if (arg == "--commit-interval-ms" &&
               absl::SimpleAtoi(value, &flags.commit_interval_ms) && flags.commit_interval_ms > 0) {
    } else {
      std::fprintf(stderr, "protond: bad option %s %s\n", arg.c_str(), value.c_str());
      return Usage(stderr, 2);
    }
  }
  const bool tcp_flags = flags.tcp.insecure || !flags.tcp.tls_cert_path.empty() ||
                         !flags.tcp.tls_key_path.empty() || !flags.tcp.tokens_path.empty();
  if (flags.tcp.listen.empty() && tcp_flags) {
    std::fprintf(stderr, "protond: --tokens, --tls-cert, --tls-key and --insecure need --listen\n");
    return Usage(stderr, 2);
  }
  if (const absl::Status web = protond::web::CheckWebPageOptions(flags.web, flags.tcp); !web.ok()) {
    std::fprintf(stderr, "protond: %s\n", std::string(web.message()).c_str());
    return Usage(stderr, 2);
  }
  if (flags.always_on_options && !flags.always_on) {
    std::fprintf(stderr,
                 "protond: the --always-on-*, --history-* and --keep-* options need --always-on\n");
    return Usage(stderr, 2);
  }
  const auto& retention = flags.retention;
  if (retention.keep_hourly < retention.keep_windows) {
    // An hour is made from windows before a day from hours: keeping hours for less time than
    // windows would leave windows that no day could take.
    std::fprintf(
        stderr,
        "protond: --keep-hourly (%lld ms) must not be shorter than --keep-windows (%lld "
        "ms)\n",
        static_cast<long long>(
            std::chrono::duration_cast<std::chrono::milliseconds>(retention.keep_hourly).count()),
        static_cast<long long>(
            std::chrono::duration_cast<std::chrono::milliseconds>(retention.keep_windows).count()));
    return Usage(stderr, 2);
  }
  const auto& policy = flags.always_on_policy;
  if (flags.always_on && policy.window >= policy.period) {
    std::fprintf(stderr,
                 "protond: --always-on-window (%lld ms) must be shorter than --always-on-period "
                 "(%lld ms)\n",
                 static_cast<long long>(policy.window.count()),
                 static_cast<long long>(policy.period.count()));
    return Usage(stderr, 2);
  }
  return -1;
}

// The signals the main thread waits for, blocked in every thread: SIGINT and SIGTERM end the
// daemon, SIGHUP reads --tokens again (as daemons read their configuration on it).
sigset_t DaemonSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  return signals;
}

// Waits for SIGINT or SIGTERM, calling `every_second` meanwhile and `on_hangup` at each SIGHUP;
// returns the signal.
int WaitForTermination(const std::function<void()>& every_second,
                       const std::function<void()>& on_hangup) {
  const sigset_t signals = DaemonSignals();
  const timespec second = {1, 0};
  for (;;) {
    const int received = sigtimedwait(&signals, nullptr, &second);
    if (received == SIGHUP) {
      on_hangup();
    } else if (received > 0) {
      return received;
    } else {
      every_second();
    }
  }
}

// SIGHUP: --tokens read again (server/token_file.h). A reload that works ends the page's
// sign-ins, whose keys do not say whose token they were; one that fails changes nothing.
void ReloadTokens(protond::server::TokenFile* tokens, protond::web::WebPage* web) {
  if (tokens == nullptr) {
    std::fprintf(stderr, "protond: SIGHUP: no --tokens to read again\n");
    return;
  }
  absl::StatusOr<size_t> reloaded = tokens->Reload();
  if (!reloaded.ok()) {
    std::fprintf(stderr, "protond: SIGHUP: kept the tokens in use: %s\n",
                 std::string(reloaded.status().message()).c_str());
    return;
  }
  if (web != nullptr) web->SignOutAll();
  std::fprintf(stderr, "protond: SIGHUP: read %zu tokens from %s%s\n", *reloaded,
               tokens->path().c_str(), web != nullptr ? "; the page's sign-ins ended" : "");
}

// --detach: forks; the command's own process waits until the daemon reports that it listens
// (exit 0) or dies (exit 1, its reason already on stderr), so that whoever started it knows. The
// daemon runs on in a new session, without the caller's terminal. Returns, in the daemon, the
// pipe to write one byte to once it listens. Called before any thread exists.
int Detach() {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) {
    std::perror("protond: pipe");
    std::exit(1);
  }
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("protond: fork");
    std::exit(1);
  }
  if (pid > 0) {
    close(ready[1]);
    char byte = 0;
    ssize_t n;
    do {
      n = read(ready[0], &byte, 1);
    } while (n < 0 && errno == EINTR);
    _exit(n == 1 ? 0 : 1);
  }
  close(ready[0]);
  setsid();
  return ready[1];
}

// protond.pid in the state directory names the daemon serving it (how to stop an autostarted
// one: kill $(cat DIR/protond.pid)); removed at a clean exit. Replaced, never written through a
// link that someone planted in a --state-dir they could write.
// What protonctl start --pid loads into a process that has no shim, and where that shim is to
// register (absolute: the process has a working directory of its own). None when no shim was
// installed with protond.
std::optional<protond::service::ShimLoading> ShimLoadingFor(const std::string& socket) {
  const std::string shim = protond::paths::InstalledShimPath();
  if (shim.empty()) {
    std::fprintf(stderr,
                 "protond: no libprotond_shim.so beside protond or in ../lib (nor PROTOND_SHIM): "
                 "processes without the shim cannot be attached\n");
    return std::nullopt;
  }
  std::error_code error;
  return protond::service::ShimLoading{
      shim, std::filesystem::absolute(socket, error).lexically_normal().string()};
}

void WritePidFile(const std::string& path) {
  const absl::Status written = protond::files::WriteOutputFile(
      path, absl::StrCat(getpid(), "\n"), protond::files::ExistingFile::kReplace);
  if (!written.ok()) std::fprintf(stderr, "protond: %s\n", std::string(written.message()).c_str());
}

// The state directory, made if it is missing, for protond's user alone.
absl::Status MakeStateDirectory(const std::string& state_dir) {
  std::error_code error;
  std::filesystem::create_directories(state_dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot create state directory ", state_dir, ": ", error.message()));
  }
  chmod(state_dir.c_str(), 0700);
  return absl::OkStatus();
}

// The state directory removed while the daemon runs (`rm -r` of it): SQLite would write on into
// the unlinked store, and the next start would find no session. The directory is made again and
// locked, the store written anew there with every session, and the pid file too, loudly. What
// fails is said once, and tried again the next second.
class StateDirectoryKeeper {
 public:
  StateDirectoryKeeper(const Flags& flags, protond::store::StoreLock& lock,
                       protond::service::ProtondService& service)
      : flags_(flags), lock_(lock), service_(service) {}

  void CheckOnce() {
    if (!service_.StoreWasRemoved()) return;
    if (last_error_.empty()) {
      std::fprintf(stderr,
                   "protond: the store %s/protond.db was removed while in use; writing it anew "
                   "there, with every session\n",
                   flags_.state_dir.c_str());
    }
    const absl::Status written = WriteAnew();
    if (written.ok()) {
      std::fprintf(stderr, "protond: the store %s/protond.db is written anew\n",
                   flags_.state_dir.c_str());
    } else if (written.message() != last_error_) {
      std::fprintf(stderr, "protond: cannot write the store anew, trying again each second: %s\n",
                   std::string(written.message()).c_str());
    }
    last_error_ = written.ok() ? "" : std::string(written.message());
  }

 private:
  absl::Status WriteAnew() {
    if (absl::Status made = MakeStateDirectory(flags_.state_dir); !made.ok()) return made;
    if (absl::Status locked = lock_.RelockIfRemoved(flags_.state_dir, flags_.socket);
        !locked.ok()) {
      return locked;
    }
    if (absl::Status written = service_.WriteTheStoreAnew(); !written.ok()) return written;
    WritePidFile(flags_.state_dir + "/protond.pid");
    return absl::OkStatus();
  }

  const Flags& flags_;
  protond::store::StoreLock& lock_;
  protond::service::ProtondService& service_;
  std::string last_error_;  // of the last try that failed; "" after one that worked
};

}  // namespace

// Each query builds its answer (a 10k-node tree: about 10 MB of rows and messages) and frees it.
// With glibc's defaults the big blocks are mmapped and the freed heap top is given back, so the
// next query faults every page in again: a 10k-node GetTree took 63 ms of daemon CPU and 1,760
// page faults, 29 ms and 160 with these (bench/viewer_latency.py, docs/performance.md). Up to
// 64 MB of freed memory then stays with the daemon.
void KeepFreedMemoryForTheNextQuery() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

int main(int argc, char** argv) {
  KeepFreedMemoryForTheNextQuery();
  Flags flags;
  if (int code = ParseFlags(argc, argv, flags); code >= 0) return code;
  const int ready_fd = flags.detach ? Detach() : -1;
  // Block the daemon's signals in every thread; the main thread waits for them.
  const sigset_t signals = DaemonSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // A store that reaches the file size limit (ulimit -f) fails its commit with an error that the
  // daemon reports, instead of SIGXFSZ killing it without a word.
  signal(SIGXFSZ, SIG_IGN);

  // Before the store is touched: a second daemon for this socket must not open it.
  auto lock = protond::server::SocketLock::Acquire(flags.socket);
  if (!lock.ok()) {
    std::fprintf(stderr, "protond: %s\n", std::string(lock.status().message()).c_str());
    return 1;
  }
  if (const absl::Status made = MakeStateDirectory(flags.state_dir); !made.ok()) {
    std::fprintf(stderr, "protond: %s\n", std::string(made.message()).c_str());
    return 1;
  }
  // A second daemon on this store (another socket, same state directory) would hand out the same
  // session ids and overwrite this one's rows; it is refused here, before it opens the store.
  auto store_lock = protond::store::StoreLock::Acquire(flags.state_dir, flags.socket);
  if (!store_lock.ok()) {
    std::fprintf(stderr, "protond: %s\n", std::string(store_lock.status().message()).c_str());
    return 1;
  }
  // The store is this daemon's now: a daemon autostarted at the socket after this one keeps it.
  if (absl::Status recorded = lock->Record(flags.state_dir); !recorded.ok()) {
    std::fprintf(stderr,
                 "protond: %s; a daemon autostarted at %s after this one may not find this store\n",
                 std::string(recorded.message()).c_str(), flags.socket.c_str());
  }
  protond::service::ServiceOptions service_options;
  service_options.store_path = flags.state_dir + "/protond.db";
  service_options.commit_interval = std::chrono::milliseconds(flags.commit_interval_ms);
  if (flags.always_on) service_options.always_on = flags.always_on_policy;
  service_options.retention = flags.retention;
  if (flags.shim_loading) service_options.shim_loading = ShimLoadingFor(flags.socket);
  auto service = protond::service::ProtondService::Create(service_options);
  if (!service.ok()) {
    std::fprintf(stderr, "protond: %s\n", std::string(service.status().message()).c_str());
    return 1;
  }
  // TCP and metrics first: once the socket answers, so do their ports (what tests and scripts
  // wait for).
  std::shared_ptr<protond::server::TokenFile> tokens;
  if (!flags.tcp.listen.empty() && !flags.tcp.tokens_path.empty()) {
    auto loaded = protond::server::TokenFile::Load(flags.tcp.tokens_path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "protond: %s\n", std::string(loaded.status().message()).c_str());
      return 1;
    }
    tokens = *std::move(loaded);
  }
  std::unique_ptr<protond::server::TcpServer> tcp;
  if (!flags.tcp.listen.empty()) {
    auto started = protond::server::TcpServer::Start(flags.tcp, service->get(), tokens);
    if (!started.ok()) {
      std::fprintf(stderr, "protond: %s\n", std::string(started.status().message()).c_str());
      return 1;
    }
    tcp = *std::move(started);
    std::fprintf(stderr, "protond: serving over TCP (%s) at %s, port %d\n",
                 flags.tcp.insecure ? "plain, loopback only" : "TLS", flags.tcp.listen.c_str(),
                 tcp->port());
  }
  std::unique_ptr<protond::web::WebPage> web;
  if (!flags.web.listen.empty()) {
    auto started = protond::web::WebPage::Start(flags.web, flags.tcp, **service, tokens);
    if (!started.ok()) {
      std::fprintf(stderr, "protond: %s\n", std::string(started.status().message()).c_str());
      return 1;
    }
    web = *std::move(started);
    std::fprintf(stderr, "protond: serving the web page (%s) at %s, web port %d\n",
                 flags.tcp.insecure ? "plain HTTP, loopback only" : "HTTPS",
                 flags.web.listen.c_str(), web->port());
  }
  std::unique_ptr<protond::metrics::MetricsServer> metrics;
  if (!flags.metrics_listen.empty()) {
    protond::metrics::MetricsServerOptions options;
    options.listen = flags.metrics_listen;
    protond::service::ProtondService* served = service->get();
    auto started = protond::metrics::MetricsServer::Start(
        options, [served] { return protond::metrics::RenderText(served->MetricsSnapshot()); });
    if (!started.ok()) {
      std::fprintf(stderr, "protond: %s\n", std::string(started.status().message()).c_str());
      return 1;
    }
    metrics = *std::move(started);
    std::fprintf(stderr,
                 "protond: serving Prometheus metrics (HTTP, no authentication) at %s, "
                 "metrics port %d\n",
                 flags.metrics_listen.c_str(), metrics->port());
  }
  auto server = protond::server::UnixServer::Start(flags.socket, service->get());
  if (!server.ok()) {
    std::fprintf(stderr, "protond: %s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  const std::string pid_file = flags.state_dir + "/protond.pid";
  WritePidFile(pid_file);
  std::fprintf(stderr, "protond: listening at %s, store %s/protond.db, pid %d\n",
               flags.socket.c_str(), flags.state_dir.c_str(), static_cast<int>(getpid()));
  if (ready_fd >= 0) {
    (void)!write(ready_fd, "R", 1);
    close(ready_fd);
  }
  StateDirectoryKeeper keeper(flags, *store_lock, **service);
  const int signal_number = WaitForTermination([&keeper] { keeper.CheckOnce(); },
                                               [&] { ReloadTokens(tokens.get(), web.get()); });
  std::fprintf(stderr, "protond: %s, shutting down\n", strsignal(signal_number));
  if (tcp != nullptr) tcp->Shutdown();
  web.reset();
  if (metrics != nullptr) metrics->Shutdown();
  (*server)->Shutdown();
  unlink(pid_file.c_str());
  if (absl::Status s = (*service)->RunIngestCycle(); !s.ok()) {
    std::fprintf(stderr, "protond: last commit failed: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
