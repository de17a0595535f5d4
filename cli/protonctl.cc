// protonctl: the command line of protond. See `protonctl --help` and README.md.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/profile_commands.h"
#include "cli/render/device_table.h"
#include "cli/render/session_table.h"
#include "cli/run_command.h"
#include "client-lib/cpp/client.h"
#include "client-lib/cpp/daemon_paths.h"

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
    "  tree SESSION|FILE [-m METRIC[,METRIC]] [-d DEPTH] [-t THRESHOLD] [-i REGEX | -e REGEX]\n"
    "       [-f full|file_function_line|function_line|file_function] [--print-sorted]\n"
    "       [--diff SESSION|FILE] [--mangled] [-l]\n"
    "                                            print the call tree of a session or of a\n"
    "                                            Hatchet file, as proton-viewer (-l: list the\n"
    "                                            metrics; see docs/viewer.md)\n"
    "  top SESSION|FILE [-n COUNT] [--mangled]   the kernels that took the most GPU time, with\n"
    "                                            their rates and roofline verdict\n"
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

int Print(const absl::StatusOr<std::string>& text) {
  if (!text.ok()) return Fail(text.status());
  std::fputs(text->c_str(), stdout);
  return 0;
}

int BadUsage(const std::string& message) {
  std::fprintf(stderr, "protonctl: %s\n", message.c_str());
  return Usage(stderr, 2);
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
  absl::StatusOr<TreeArgs> tree_args = ParseTreeArgs(args);
  if (!tree_args.ok()) return BadUsage(absl::StrCat("tree: ", tree_args.status().message()));
  return Print(RenderTreeCommand(client, *tree_args));
}

int Top(client::Client& client, const std::vector<std::string>& args) {
  absl::StatusOr<TopArgs> top_args = ParseTopArgs(args);
  if (!top_args.ok()) return BadUsage(absl::StrCat("top: ", top_args.status().message()));
  return Print(RenderTopCommand(client, *top_args));
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
  if (command == "top") return Top(client, args);
  if (command == "devices") return Devices(client, args);
  if (command == "stop") return Stop(client, args);
  return BadUsage("unknown command '" + command + "'");
}

}  // namespace
}  // namespace protond::cli

int main(int argc, char** argv) { return protond::cli::Main(argc, argv); }
