// protonctl: the command line of protond. See `protonctl --help` and README.md.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/hatchet/hatchet_reader.h"
#include "cli/render/device_table.h"
#include "cli/render/metric_spec.h"
#include "cli/render/session_table.h"
#include "cli/render/tree_view.h"
#include "cli/run_command.h"
#include "client-lib/cpp/client.h"
#include "client-lib/cpp/daemon_paths.h"
#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

constexpr char kUsage[] =
    "usage: protonctl [--socket PATH] COMMAND ...\n"
    "  run [--name NAME] [--as-proton] [--data tree|trace] -- PROGRAM [ARGS...]\n"
    "                                            profile PROGRAM in a new session (with\n"
    "                                            --as-proton, Python's triton.profiler is\n"
    "                                            protond.profiler; --data trace keeps every\n"
    "                                            event, for a Chrome trace)\n"
    "  sessions                                  list your sessions\n"
    "  tree SESSION|FILE [-m METRIC[,METRIC]] [-d DEPTH] [-l]\n"
    "                                            print the call tree of a session or of a\n"
    "                                            Hatchet file (-l: list the metrics)\n"
    "  devices SESSION                           list the GPUs of a session's processes\n"
    "  stop --session SESSION                    stop a running session\n"
    "The socket is --socket, else $PROTOND_SOCKET, else the default (%s).\n";

int Usage(FILE* out, int code) {
  std::fprintf(out, kUsage, client::DefaultDaemonPaths().socket.c_str());
  return code;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "protonctl: %s\n", std::string(status.message()).c_str());
  return 1;
}

int BadUsage(const std::string& message) {
  std::fprintf(stderr, "protonctl: %s\n", message.c_str());
  return Usage(stderr, 2);
}

absl::StatusOr<uint64_t> ParseSessionId(const std::string& text) {
  uint64_t id;
  if (!absl::SimpleAtoi(text, &id) || id == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", text, "' is not a session id (a positive number; see protonctl sessions)"));
  }
  return id;
}

// A profile is a session of the daemon (a number) or a Hatchet file (any other argument; "./7"
// names a file called 7).
absl::StatusOr<v1::Tree> LoadProfile(client::Client& client, const std::string& argument) {
  const bool session =
      !argument.empty() && std::all_of(argument.begin(), argument.end(), absl::ascii_isdigit);
  if (!session) return ReadHatchetFile(argument);
  ASSIGN_OR_RETURN(const uint64_t id, ParseSessionId(argument));
  return client.GetTree(id);
}

int PrintMetricNames(const v1::Tree& tree) {
  for (const std::string& name : AvailableMetricNames(tree)) std::printf("%s\n", name.c_str());
  return 0;
}

int Run(const std::string& socket, const std::vector<std::string>& args) {
  RunOptions options;
  options.socket_path = socket;
  size_t i = 0;
  for (; i < args.size() && args[i] != "--"; ++i) {
    if (args[i] == "--name" && i + 1 < args.size()) {
      options.session_name = args[++i];
    } else if (args[i] == "--as-proton") {
      options.as_proton = true;
    } else if (args[i] == "--data" && i + 1 < args.size()) {
      const std::string& data = args[++i];
      if (data != "tree" && data != "trace") {
        return BadUsage("run --data is tree or trace, not '" + data + "'");
      }
      options.trace = data == "trace";
    } else {
      break;
    }
  }
  if (i < args.size() && args[i] == "--") ++i;
  options.argv.assign(args.begin() + static_cast<long>(i), args.end());
  if (options.argv.empty()) return BadUsage("run needs a program: protonctl run -- PROGRAM");
  return RunCommand(options);
}

int Sessions(client::Client& client) {
  auto sessions = client.ListSessions();
  if (!sessions.ok()) return Fail(sessions.status());
  std::fputs(RenderSessionTable(sessions->sessions()).c_str(), stdout);
  return 0;
}

int Tree(client::Client& client, const std::vector<std::string>& args) {
  std::string profile;
  std::string metrics;
  int depth = kDefaultTreeDepth;
  bool list_metrics = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "-m" || args[i] == "--metrics") && i + 1 < args.size()) {
      metrics = args[++i];
    } else if ((args[i] == "-d" || args[i] == "--depth") && i + 1 < args.size()) {
      if (!absl::SimpleAtoi(args[++i], &depth) || depth < 0) {
        return BadUsage("-d needs a depth (a number >= 0), not '" + args[i] + "'");
      }
    } else if (args[i] == "-l" || args[i] == "--list") {
      list_metrics = true;
    } else if (profile.empty() && args[i][0] != '-') {
      profile = args[i];
    } else {
      return BadUsage("tree: unexpected argument '" + args[i] + "'");
    }
  }
  if (profile.empty()) return BadUsage("tree needs a session id or a Hatchet file");
  auto tree = LoadProfile(client, profile);
  if (!tree.ok()) return Fail(tree.status());
  if (list_metrics) return PrintMetricNames(*tree);
  auto columns = ParseMetricSpec(metrics, *tree);
  if (!columns.ok()) return Fail(columns.status());
  auto text = RenderTree(*tree, *columns, depth);
  if (!text.ok()) return Fail(text.status());
  std::fputs(text->c_str(), stdout);
  return 0;
}

int Devices(client::Client& client, const std::vector<std::string>& args) {
  if (args.empty()) return BadUsage("devices needs a session id");
  if (args.size() > 1) return BadUsage("devices: unexpected argument '" + args[1] + "'");
  auto id = ParseSessionId(args[0]);
  if (!id.ok()) return Fail(id.status());
  auto tree = client.GetTree(*id);
  if (!tree.ok()) return Fail(tree.status());
  std::fputs(RenderDeviceTable(*id, tree->devices()).c_str(), stdout);
  return 0;
}

int Stop(client::Client& client, const std::vector<std::string>& args) {
  if (args.size() != 2 || args[0] != "--session") return BadUsage("usage: stop --session SESSION");
  auto id = ParseSessionId(args[1]);
  if (!id.ok()) return Fail(id.status());
  auto session = client.StopSession(*id);
  if (!session.ok()) return Fail(session.status());
  std::printf("session %llu stopped: %llu records, %llu dropped\n",
              static_cast<unsigned long long>(session->id()),
              static_cast<unsigned long long>(session->records()),
              static_cast<unsigned long long>(session->dropped_records()));
  return 0;
}

int Main(int argc, char** argv) {
  std::string socket_flag;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") return Usage(stdout, 0);
    if (arg == "--socket" && i + 1 < argc) {
      socket_flag = argv[++i];
    } else {
      return BadUsage("unknown option '" + arg + "'");
    }
  }
  if (i >= argc) return Usage(stderr, 2);
  const std::string command = argv[i];
  const std::vector<std::string> args(argv + i + 1, argv + argc);
  const std::string socket = client::ResolveSocketPath(socket_flag);
  if (command == "run") return Run(socket, args);
  client::Client client(socket);
  if (command == "sessions" && args.empty()) return Sessions(client);
  if (command == "tree") return Tree(client, args);
  if (command == "devices") return Devices(client, args);
  if (command == "stop") return Stop(client, args);
  return BadUsage("unknown command '" + command + "'");
}

}  // namespace
}  // namespace protond::cli

int main(int argc, char** argv) { return protond::cli::Main(argc, argv); }
