// `protonctl run`: starts a session, runs a program with the shim loaded, stops the session when
// the program ends, and exits with the program's status. The program is never held back by the
// profiler: with no daemon it runs unprofiled, with a dead daemon it runs on.
#ifndef PROTOND_CLI_RUN_COMMAND_H_
#define PROTOND_CLI_RUN_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace protond::cli {

struct RunOptions {
  std::string socket_path;
  std::string session_name;       // default: the program's base name
  std::vector<std::string> argv;  // the program and its arguments
  // Python programs written for Proton: `import triton.profiler` gives protond.profiler (found
  // through PROTOND_PYTHON_DIR, else ../python beside protonctl's folder, as in a bundle).
  bool as_proton = false;
  // --data trace: the session keeps every event (Proton's data="trace"), not only the tree.
  bool trace = false;
  // --mode: Proton's mode as common/mode/session_mode.h writes it back ("" for none); the program
  // gets it in PROTOND_SESSION_MODE, beside PROTOND_SESSION.
  std::string mode;
  // -h or --help among the options: show run's usage, start nothing.
  bool help = false;
};

// `run [--name NAME] [--as-proton] [--data tree|trace] [--mode MODE] [--] PROGRAM [ARGS...]`:
// the options end at `--` or at the first argument that is not one (an argument that starts with
// '-' is an option, and one run does not know is an error). With -h or --help among the options,
// `help` alone is set. InvalidArgumentError says what is wrong. The socket path is the caller's
// to set.
absl::StatusOr<RunOptions> ParseRunArgs(const std::vector<std::string>& args);

// Returns the exit code protonctl should exit with (the program's, or 128+signal).
int RunCommand(const RunOptions& options);

}  // namespace protond::cli

#endif  // PROTOND_CLI_RUN_COMMAND_H_
