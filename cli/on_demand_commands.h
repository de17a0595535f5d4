// `protonctl start` and `protonctl stop`: their arguments. Pure functions; no I/O.
#ifndef PROTOND_CLI_ON_DEMAND_COMMANDS_H_
#define PROTOND_CLI_ON_DEMAND_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "protond.pb.h"

namespace protond::cli {

struct StartArgs {
  v1::AttachRequest request;
  bool wait = false;  // block until the session ends, then print its tree
};

// `start (--pid PID [--pid PID ...] | --job JOB [--include-new]) [--name NAME] [--duration D]
// [--data tree|trace] [--mode MODE] [--wait]`; InvalidArgumentError says what is wrong. The mode
// is sent as common/mode/session_mode.h writes it back.
absl::StatusOr<StartArgs> ParseStartArgs(const std::vector<std::string>& args);

struct StopArgs {
  uint64_t session_id = 0;  // or
  uint32_t pid = 0;         // the running session this process records into, or
  std::string job;          // every running session started for this job
};

// `stop --session ID`, `stop --pid PID` or `stop --job JOB`.
absl::StatusOr<StopArgs> ParseStopArgs(const std::vector<std::string>& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_ON_DEMAND_COMMANDS_H_
