#include "cli/usage.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace protond::cli {
namespace {

struct CommandText {
  const char* command;
  const char* usage;
};

// In the order `protonctl --help` lists them. A command may have several entries (tree, top).
constexpr CommandText kCommands[] = {
    {"run",
     "  run [--name NAME] [--as-proton] [--data tree|trace] [--mode MODE] -- PROGRAM [ARGS...]\n"
     "                                            profile PROGRAM in a new session (with\n"
     "                                            --as-proton, Python's triton.profiler is\n"
     "                                            protond.profiler; --data trace keeps every\n"
     "                                            event, for a Chrome trace; --mode is Proton's:\n"
     "                                            pcsampling[:interval=CYCLES] also samples the\n"
     "                                            GPU's program counters, docs/pc-sampling.md)\n"},
    {"sessions", "  sessions                                  list your sessions\n"},
    {"history",
     "  history [--pid PID | --job JOB] [--command REGEX] [--since T] [--until T]\n"
     "                                            the always-on windows (protond --always-on)\n"
     "                                            you may see, oldest first: when, whose, GPU\n"
     "                                            busy, top kernel; T: a duration back (90s, 30m,\n"
     "                                            2h) or an RFC 3339 time (docs/always-on.md)\n"},
    {"tree",
     "  tree SESSION|FILE [-m METRIC[,METRIC]] [-d DEPTH] [-t THRESHOLD] [-i REGEX | -e REGEX]\n"
     "       [-f full|file_function_line|function_line|file_function|sass] [--print-sorted]\n"
     "       [--diff SESSION|FILE] [--full-names | --mangled] [-l] [--rank RANK] [--follow]\n"
     "                                            print the call tree of a session or of a\n"
     "                                            Hatchet file, as proton-viewer (-l: list the\n"
     "                                            metrics; --follow: redraw it every second\n"
     "                                            while the session runs; docs/viewer.md)\n"},
    {"tree",
     "  tree --job JOB [-m METRIC] [-d DEPTH]     the job's ranks as one tree: each frame's "
     "total,\n"
     "                                            min, median and max per rank, and the slowest\n"
     "                                            rank (with --hosts: over every node)\n"},
    {"tree",
     "  tree (--pid PID | --job JOB | --command REGEX) [--since T] [--until T] [-m METRIC] ...\n"
     "       [--diff --since T [--until T] [-t 5%]]\n"
     "                                            the always-on windows in the range as one tree;\n"
     "                                            with --diff --since, the kernels and scopes\n"
     "                                            whose share of GPU time moved by more than -t\n"
     "                                            against the other range (docs/always-on.md)\n"},
    {"job",
     "  job (SESSION | --job JOB) [--follow]      which rank the others wait for in NCCL\n"
     "                                            collectives, and a summary per collective\n"
     "                                            (sessions run with --data trace; "
     "docs/jobs.md);\n"
     "                                            --follow: redrawn every 2 s while it records;\n"
     "                                            with --hosts (and --job): over every node, the\n"
     "                                            nodes' clock offsets estimated and stated\n"},
    {"top",
     "  top SESSION|FILE [-n COUNT] [--full-names | --mangled]\n"
     "                                            the kernels that took the most GPU time, with\n"
     "                                            their rates and roofline verdict\n"},
    {"top",
     "  top SESSION|FILE --stalls [-n COUNT]      the sampled source lines with the most stalled\n"
     "                                            PC samples, and why (--mode pcsampling)\n"},
    {"top",
     "  top SESSION|FILE --collectives [-n COUNT] the NCCL collectives by GPU time: calls,\n"
     "                                            datatype, algorithm, protocol (docs/jobs.md)\n"},
    {"export",
     "  export SESSION|FILE --format hatchet|hatchet_msgpack|chrome|folded|svg|csv|pprof\n"
     "         -o FILE [--force] [-m METRIC] [--full-names | --mangled]\n"
     "                                            write a profile for other tools: Proton's\n"
     "                                            Hatchet JSON (or in MessagePack), a Chrome\n"
     "                                            trace (sessions run with --data trace),\n"
     "                                            folded stacks, an SVG\n"
     "                                            flame graph, a per-kernel CSV, a gzipped\n"
     "                                            pprof profile (go tool pprof, speedscope) "
     "(docs/export.md)\n"},
    {"devices",
     "  devices SESSION                           list the GPUs of a session's processes: those\n"
     "                                            each ran work on, and those it only saw\n"},
    {"processes",
     "  processes [--all]                         list the processes protond can profile (the\n"
     "                                            shim loaded): pid, rank, job, GPU, sessions;\n"
     "                                            --all: also GPU processes without the shim,\n"
     "                                            attachable by start --pid or why not\n"},
    {"start",
     "  start (--pid PID [--pid PID...] | --job JOB [--include-new]) [--name NAME]\n"
     "        [--duration D] [--data tree|trace] [--mode MODE] [--wait]\n"
     "                                            profile running processes now, until stopped\n"
     "                                            (or for D: 30s, 2m, 500ms); --include-new: the\n"
     "                                            job's processes that register later join too;\n"
     "                                            --mode as for run; --wait blocks until it ends\n"
     "                                            (Ctrl-C stops it) and prints the tree; a --pid\n"
     "                                            without the shim gets it loaded (attach)\n"},
    {"stop",
     "  stop (--session SESSION | --pid PID | --job JOB)\n"
     "                                            stop a running session (--job: each of the\n"
     "                                            job's)\n"},
    {"ui",
     "  ui [--port PORT] [--web-dir DIR]          serve the web page on 127.0.0.1 (PORT 0, the\n"
     "                                            default: a free one) and print its address,\n"
     "                                            with a token; until Ctrl-C (docs/web.md); with\n"
     "                                            --hosts: the Job page only, over every node\n"},
};

constexpr char kGlobalOptions[] =
    "usage: protonctl [--socket PATH | (--host HOST:PORT | --hosts LIST) --token-file FILE\n"
    "                 [--tls-ca FILE | --insecure]] COMMAND ...\n"
    "       protonctl --version | --help\n"
    "COMMAND --help (or -h) shows that command's usage alone.\n";

}  // namespace

std::string ProtonctlUsage(const std::string& default_socket) {
  std::string out = kGlobalOptions;
  for (const CommandText& command : kCommands) absl::StrAppend(&out, command.usage);
  absl::StrAppend(
      &out, "The socket is --socket, else $PROTOND_SOCKET, else the default (", default_socket,
      ").\n"
      "--host reaches a protond on another machine (protond --listen) over TLS, verified with\n"
      "the certificates of --tls-ca (else the system's), with the token in --token-file\n"
      "(docs/cluster.md); --insecure: plain TCP, which protond serves on loopback only.\n"
      "--hosts runs the command on each host of a Slurm hostlist ('node[01-04]:7878') at once.\n");
  return out;
}

std::string CommandUsage(const std::string& command) {
  std::string out;
  for (const CommandText& entry : kCommands) {
    if (entry.command != command) continue;
    if (out.empty()) out = "usage: protonctl [GLOBAL OPTIONS] COMMAND ...\n";
    absl::StrAppend(&out, entry.usage);
  }
  return out;
}

bool AsksForHelp(const std::vector<std::string>& args) {
  const auto end = std::find(args.begin(), args.end(), "--");
  return std::find_if(args.begin(), end,
                      [](const std::string& arg) { return arg == "-h" || arg == "--help"; }) != end;
}

}  // namespace protond::cli
