// protonctl: the command line of protond. See `protonctl --help` and README.md.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "cli/client_profile_source.h"
#include "cli/export_command.h"
#include "cli/fan_out/each_host.h"
#include "cli/fan_out/hostlist.h"
#include "cli/fan_out/job_tree_command.h"
#include "cli/history_command.h"
#include "cli/job_command.h"
#include "cli/on_demand_commands.h"
#include "cli/profile_commands.h"
#include "cli/remote_endpoint.h"
#include "cli/run_command.h"
#include "cli/ui_command.h"
#include "cli/usage.h"
#include "client-lib/cpp/client.h"
#include "common/paths/daemon_paths.h"
#include "view/render/device_table.h"
#include "view/render/process_table.h"
#include "view/render/session_table.h"

namespace protond::cli {
namespace {

int Usage(FILE* out, int code) {
  std::fputs(ProtonctlUsage(paths::DefaultDaemonPaths().socket).c_str(), out);
  return code;
}

int Version() {
  std::printf("protonctl %s\n", PROTOND_VERSION);
  return 0;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "protonctl: %s\n", std::string(status.message()).c_str());
  return 1;
}

int Print(const absl::StatusOr<std::string>& text) {
  if (!text.ok()) return Fail(text.status());
  std::fputs(text->c_str(), stdout);
  return 0;
}

int BadUsage(const std::string& message) {
  std::fprintf(stderr, "protonctl: %s\n", message.c_str());
  return Usage(stderr, 2);
}

// A command line `command` cannot read: what was wrong, then that command's usage alone.
int BadCommandUsage(const std::string& command, absl::string_view message) {
  std::fprintf(stderr, "protonctl: %s: %s\n", command.c_str(), std::string(message).c_str());
  std::fputs(CommandUsage(command).c_str(), stderr);
  return 2;
}

// `COMMAND --help`: its usage, before anything is done (no daemon reached, nothing started).
int CommandHelp(const std::string& command) {
  const std::string usage = CommandUsage(command);
  if (usage.empty()) return BadUsage("unknown command '" + command + "'");
  std::fputs(usage.c_str(), stdout);
  return 0;
}

int Run(const std::string& socket, const std::vector<std::string>& args) {
  absl::StatusOr<RunOptions> options = ParseRunArgs(args);
  if (!options.ok()) return BadCommandUsage("run", options.status().message());
  if (options->help) return CommandHelp("run");
  options->socket_path = socket;
  return RunCommand(*options);
}

int Sessions(client::Client& client, const std::vector<std::string>& args) {
  if (!args.empty()) return BadCommandUsage("sessions", "unexpected argument '" + args[0] + "'");
  auto sessions = client.ListSessions();
  if (!sessions.ok()) return Fail(sessions.status());
  std::fputs(view::RenderSessionTable(sessions->sessions()).c_str(), stdout);
  return 0;
}

int History(client::Client& client, const std::vector<std::string>& args) {
  absl::StatusOr<HistoryArgs> history = ParseHistoryArgs(args, absl::Now());
  if (!history.ok()) return BadCommandUsage("history", history.status().message());
  return Print(RunHistoryCommand(client, *history));
}

std::atomic<bool> g_interrupted{false};

void StopOnCtrlC() {
  std::signal(SIGINT, [](int) { g_interrupted.store(true); });
}

// As hatchet decides for proton-viewer: colour for a terminal, unless NO_COLOR (no-color.org).
bool ColourOutput() { return isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr; }

using ShowFrame = std::function<void(const std::string& frame)>;

// --follow's frames: a terminal sees each in place of the last; a pipe gets them one after
// another. `follow` runs the command's loop (cli/follow.h) until Ctrl-C or its end.
int ShowFollowed(
    const std::function<absl::Status(const std::function<bool()>&, const ShowFrame&)>& follow) {
  StopOnCtrlC();
  const bool terminal = isatty(STDOUT_FILENO);
  bool first = true;
  absl::Status followed = follow([] { return !g_interrupted.load(); },
                                 [&](const std::string& frame) {
                                   if (terminal) std::fputs("\033[H\033[2J", stdout);
                                   if (!terminal && !first) std::fputs("\n", stdout);
                                   first = false;
                                   std::fputs(frame.c_str(), stdout);
                                   std::fflush(stdout);
                                 });
  return followed.ok() ? 0 : Fail(followed);
}

// `tree --job J`: the job's ranks on `nodes`, one tree with their spread, then the verdict that
// `job --job J` gives over the same nodes.
int JobTree(const std::vector<client::Endpoint>& nodes, const TreeArgs& args) {
  // Never destroyed, as main()'s client: the process ends without tearing down gRPC.
  std::vector<client::Client*> clients;
  for (const client::Endpoint& node : nodes) clients.push_back(new client::Client(node));
  absl::StatusOr<JobTreeResult> shown = RenderJobTreeCommand(
      ClientJobNodes(clients).nodes(),
      {{args.job, args.view.metrics, args.view.kernel_names}, args.view.depth});
  if (!shown.ok()) return Fail(shown.status());
  std::fputs(shown->text.c_str(), stdout);
  std::fputs(absl::StrCat("\n", RenderJobVerdict(clients, args.job)).c_str(), stdout);
  for (const std::string& node : shown->unreachable) {
    std::fprintf(stderr, "protonctl: left out %s\n", node.c_str());
  }
  return shown->unreachable.empty() ? 0 : 1;
}

int Tree(client::Client& client, const std::vector<std::string>& args) {
  absl::StatusOr<TreeArgs> tree_args = ParseTreeArgs(args, absl::Now());
  if (!tree_args.ok()) return BadCommandUsage("tree", tree_args.status().message());
  if (!tree_args->job.empty()) return JobTree({client.endpoint()}, *tree_args);
  tree_args->view.colour = ColourOutput();
  if (tree_args->follow) {
    return ShowFollowed([&](const std::function<bool()>& keep_going, const ShowFrame& show) {
      return FollowTree(client, *tree_args, kFollowInterval, keep_going, show);
    });
  }
  return Print(RenderTreeCommand(client, *tree_args));
}

// `job`: on this node's daemon, or (--hosts) on each node's, their clocks related.
int Job(const std::vector<client::Client*>& nodes, const std::vector<std::string>& args) {
  absl::StatusOr<JobArgs> job_args = ParseJobArgs(args);
  if (!job_args.ok()) return BadCommandUsage("job", job_args.status().message());
  if (job_args->follow) {
    return ShowFollowed([&](const std::function<bool()>& keep_going, const ShowFrame& show) {
      return FollowJob(nodes, *job_args, kJobFollowInterval, keep_going, show);
    });
  }
  absl::StatusOr<page_server::JobReport> report = RunJobCommand(nodes, *job_args);
  if (!report.ok()) return Fail(report.status());
  std::fputs(report->text.c_str(), stdout);
  for (const std::string& node : report->left_out) {
    std::fprintf(stderr, "protonctl: left out %s\n", node.c_str());
  }
  return report->left_out.empty() ? 0 : 1;
}

int Top(client::Client& client, const std::vector<std::string>& args) {
  absl::StatusOr<TopArgs> top_args = ParseTopArgs(args);
  if (!top_args.ok()) return BadCommandUsage("top", top_args.status().message());
  return Print(RenderTopCommand(client, *top_args));
}

int Export(client::Client& client, const std::vector<std::string>& args) {
  absl::StatusOr<ExportArgs> export_args = ParseExportArgs(args);
  if (!export_args.ok()) return BadCommandUsage("export", export_args.status().message());
  // Progress only for a person watching: a script's stderr stays clean.
  FILE* progress = isatty(STDERR_FILENO) ? stderr : nullptr;
  absl::Status exported = RunExportCommand(client, *export_args, progress);
  return exported.ok() ? 0 : Fail(exported);
}

// Serves until SIGINT or SIGTERM, then exits 0. With several nodes (--hosts), the Job page only.
int Ui(const std::vector<client::Client*>& nodes, const std::vector<std::string>& args) {
  absl::StatusOr<UiArgs> ui_args = ParseUiArgs(args);
  if (!ui_args.ok()) return BadCommandUsage("ui", ui_args.status().message());
  absl::Status served = RunUiCommand(nodes, *ui_args, stdout);
  return served.ok() ? 0 : Fail(served);
}

int Devices(client::Client& client, const std::vector<std::string>& args) {
  if (args.empty()) return BadCommandUsage("devices", "a session id is missing");
  if (args.size() > 1) return BadCommandUsage("devices", "unexpected argument '" + args[1] + "'");
  auto id = ParseSessionId(args[0]);
  if (!id.ok()) return Fail(id.status());
  auto tree = client.GetTree(*id);
  if (!tree.ok()) return Fail(tree.status());
  std::fputs(view::RenderDeviceTable(*id, tree->devices()).c_str(), stdout);
  return 0;
}

void PrintStopped(const v1::Session& session) {
  std::printf("session %llu stopped: %llu records, %llu dropped\n",
              static_cast<unsigned long long>(session.id()),
              static_cast<unsigned long long>(session.records()),
              static_cast<unsigned long long>(session.dropped_records()));
  std::fputs(view::RenderSessionProblems(session).c_str(), stdout);
}

// `stop --job J`: every running session started for the job (a scheduler's epilog).
int StopJob(client::Client& client, const std::string& job) {
  auto sessions = client.ListSessions();
  if (!sessions.ok()) return Fail(sessions.status());
  int stopped = 0;
  for (const v1::Session& session : sessions->sessions()) {
    if (session.state() != v1::Session::RUNNING || session.job() != job) continue;
    auto ended = client.StopSession(session.id());
    if (!ended.ok()) return Fail(ended.status());
    PrintStopped(*ended);
    ++stopped;
  }
  if (stopped == 0) {
    return Fail(absl::NotFoundError(absl::StrCat("job ", job, " has no running session")));
  }
  return 0;
}

int Stop(client::Client& client, const std::vector<std::string>& args) {
  absl::StatusOr<StopArgs> stop = ParseStopArgs(args);
  if (!stop.ok()) return BadCommandUsage("stop", stop.status().message());
  if (!stop->job.empty()) return StopJob(client, stop->job);
  auto session = stop->pid != 0 ? client.StopSessionOfProcess(stop->pid)
                                : client.StopSession(stop->session_id);
  if (!session.ok()) return Fail(session.status());
  PrintStopped(*session);
  return 0;
}

int Processes(client::Client& client, const std::vector<std::string>& args) {
  const bool all = args.size() == 1 && args[0] == "--all";
  if (args.size() > (all ? 1 : 0)) {
    return BadCommandUsage("processes", "unexpected argument '" + args[all ? 1 : 0] + "'");
  }
  auto processes = client.ListProcesses(all);
  if (!processes.ok()) return Fail(processes.status());
  std::fputs(view::RenderProcessTable(*processes, all).c_str(), stdout);
  return 0;
}

// Until session `id` has stopped (by its duration, or when its processes exit); Ctrl-C stops it.
absl::StatusOr<v1::Session> WaitUntilStopped(client::Client& client, uint64_t id) {
  StopOnCtrlC();
  while (!g_interrupted.load()) {
    absl::StatusOr<v1::Session> session = client.GetSession(id);
    if (!session.ok() || session->state() == v1::Session::STOPPED) return session;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return client.StopSession(id);
}

int Start(client::Client& client, const std::vector<std::string>& args) {
  absl::StatusOr<StartArgs> start = ParseStartArgs(args);
  if (!start.ok()) return BadCommandUsage("start", start.status().message());
  auto attached = client.Attach(start->request);
  if (!attached.ok()) return Fail(attached.status());
  std::fputs(view::RenderAttachResult(*attached).c_str(), stdout);
  const bool recording = attached->session().state() == v1::Session::RUNNING;
  if (!recording) return 1;
  const uint64_t id = attached->session().id();
  if (!start->wait) {
    std::printf("stop it with: protonctl stop --session %llu\n",
                static_cast<unsigned long long>(id));
    return 0;
  }
  std::fflush(stdout);
  absl::StatusOr<v1::Session> stopped = WaitUntilStopped(client, id);
  if (!stopped.ok()) return Fail(stopped.status());
  PrintStopped(*stopped);
  TreeArgs tree;
  tree.profile = absl::StrCat(id);
  tree.view.colour = ColourOutput();
  return Print(RenderTreeCommand(client, tree));
}

// The flags that --hosts passes on to each host's run.
std::vector<std::string> RemoteFlagsOf(const RemoteFlags& remote) {
  std::vector<std::string> flags = {"--token-file", remote.token_file};
  if (!remote.tls_ca.empty()) flags.insert(flags.end(), {"--tls-ca", remote.tls_ca});
  if (remote.insecure) flags.push_back("--insecure");
  return flags;
}

// `--hosts LIST COMMAND ...`: tree --job reads every host's ranks into one tree, job every host's
// collective calls into one report, ui serves the Job page over every host; any other command
// runs once per host
// (cli/fan_out/each_host.h).
int OnHosts(const std::string& hostlist, const RemoteFlags& remote, const std::string& command,
            const std::vector<std::string>& args) {
  if (!remote.host.empty()) return BadUsage("--host or --hosts, not both");
  if (command == "run") return BadUsage("run starts a program on this machine, not on --hosts");
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(hostlist);
  if (!hosts.ok()) return BadUsage(std::string(hosts.status().message()));
  std::vector<client::Endpoint> nodes;
  for (const std::string& host : *hosts) {
    RemoteFlags one = remote;
    one.host = host;
    absl::StatusOr<client::Endpoint> node = ResolveEndpoint(one, "");
    if (!node.ok()) return BadUsage(std::string(node.status().message()));
    nodes.push_back(*std::move(node));
  }
  if (command == "tree") {
    absl::StatusOr<TreeArgs> tree_args = ParseTreeArgs(args, absl::Now());
    if (!tree_args.ok()) return BadCommandUsage("tree", tree_args.status().message());
    if (!tree_args->job.empty()) return JobTree(nodes, *tree_args);
  }
  if (command == "job" || command == "ui") {
    // Never destroyed, as main()'s client: the process ends without tearing down gRPC.
    std::vector<client::Client*> clients;
    for (const client::Endpoint& node : nodes) clients.push_back(new client::Client(node));
    return command == "job" ? Job(clients, args) : Ui(clients, args);
  }
  std::vector<std::string> command_and_args = {command};
  command_and_args.insert(command_and_args.end(), args.begin(), args.end());
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) return Fail(absl::InternalError("cannot find this protonctl's own path"));
  return RunOnEachHost(std::string(self, length), *hosts, RemoteFlagsOf(remote), command_and_args);
}

int Main(int argc, char** argv) {
  std::string socket_flag;
  std::string hostlist;
  RemoteFlags remote;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") return Usage(stdout, 0);
    if (arg == "--version") return Version();
    std::string* value = arg == "--socket"       ? &socket_flag
                         : arg == "--host"       ? &remote.host
                         : arg == "--token-file" ? &remote.token_file
                         : arg == "--tls-ca"     ? &remote.tls_ca
                         : arg == "--hosts"      ? &hostlist
                                                 : nullptr;
    if (value != nullptr && i + 1 < argc) {
      *value = argv[++i];
    } else if (arg == "--insecure") {
      remote.insecure = true;
    } else {
      return BadUsage("unknown option '" + arg + "'");
    }
  }
  if (i >= argc) return Usage(stderr, 2);
  const std::string command = argv[i];
  const std::vector<std::string> args(argv + i + 1, argv + argc);
  if (command != "run" && AsksForHelp(args)) return CommandHelp(command);
  if (!hostlist.empty()) return OnHosts(hostlist, remote, command, args);
  const std::string socket = paths::ResolveSocketPath(socket_flag);
  absl::StatusOr<client::Endpoint> endpoint = ResolveEndpoint(remote, socket);
  if (!endpoint.ok()) return BadUsage(std::string(endpoint.status().message()));
  if (command == "run") {
    if (!remote.host.empty()) {
      return BadUsage(
          "run starts a program on this machine; on --host, profile running ones "
          "with start --pid or --job");
    }
    return Run(socket, args);
  }
  // Never destroyed: main() ends the process without tearing down gRPC's channel.
  client::Client& client = *new client::Client(*std::move(endpoint));
  if (command == "sessions") return Sessions(client, args);
  if (command == "history") return History(client, args);
  if (command == "tree") return Tree(client, args);
  if (command == "job") return Job({&client}, args);
  if (command == "top") return Top(client, args);
  if (command == "export") return Export(client, args);
  if (command == "devices") return Devices(client, args);
  if (command == "stop") return Stop(client, args);
  if (command == "processes") return Processes(client, args);
  if (command == "start") return Start(client, args);
  if (command == "ui") return Ui({&client}, args);
  return BadUsage("unknown command '" + command + "'");
}

}  // namespace
}  // namespace protond::cli

// Tearing down gRPC's channel and threads took 4-5 ms of a 50 ms `protonctl tree` on the H100
// machine (bench/viewer_latency.py); the process is done, so the kernel reclaims them instead.
// Every file a command writes is closed before it returns.
int main(int argc, char** argv) {
  // gRPC's own log lines (a failed TLS handshake, say) repeat what protonctl's message says.
  setenv("GRPC_VERBOSITY", "NONE", /*overwrite=*/0);
  const int code = protond::cli::Main(argc, argv);
  std::fflush(nullptr);
  std::_Exit(code);
}
