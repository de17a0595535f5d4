#include "cli/on_demand_commands.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/profile_commands.h"
#include "common/mode/session_mode.h"
#include "common/text/duration.h"
#include "common/text/session_name.h"

namespace protond::cli {
namespace {

absl::Status Bad(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

absl::StatusOr<uint32_t> ParsePid(const std::string& text) {
  uint32_t pid;
  if (!absl::SimpleAtoi(text, &pid) || pid == 0) {
    return Bad(absl::StrCat("'", text, "' is not a pid (a positive number)"));
  }
  return pid;
}

}  // namespace

absl::StatusOr<StartArgs> ParseStartArgs(const std::vector<std::string>& args) {
  StartArgs out;
  v1::AttachRequest& request = out.request;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool has_value = i + 1 < args.size();
    if (arg == "--wait") {
      out.wait = true;
    } else if (arg == "--include-new") {
      request.set_include_new(true);
    } else if (!has_value) {
      return Bad(absl::StrCat("unexpected argument '", arg, "'",
                              absl::StartsWith(arg, "--") ? " (it needs a value)" : ""));
    } else if (arg == "--pid") {
      absl::StatusOr<uint32_t> pid = ParsePid(args[++i]);
      if (!pid.ok()) return pid.status();
      request.add_pids(*pid);
    } else if (arg == "--job") {
      request.set_job(args[++i]);
    } else if (arg == "--name") {
      if (absl::Status name = text::CheckSessionName(args[++i]); !name.ok()) {
        return Bad(absl::StrCat("--name: ", name.message()));
      }
      request.set_name(args[i]);
    } else if (arg == "--duration") {
      absl::StatusOr<uint64_t> ms = text::ParseDurationMs(args[++i]);
      if (!ms.ok()) return ms.status();
      request.set_duration_ms(*ms);
    } else if (arg == "--data") {
      const std::string& data = args[++i];
      if (data != "tree" && data != "trace") {
        return Bad(absl::StrCat("--data is tree or trace, not '", data, "'"));
      }
      request.set_data(data == "trace" ? v1::Session::TRACE : v1::Session::TREE);
    } else if (arg == "--mode") {
      absl::StatusOr<mode::SessionMode> mode = mode::ParseSessionMode(args[++i]);
      if (!mode.ok()) return Bad(absl::StrCat("--mode: ", mode.status().message()));
      request.set_mode(mode::SessionModeText(*mode));
    } else {
      return Bad(absl::StrCat(
          absl::StartsWith(arg, "-") ? "unknown option '" : "unexpected argument '", arg, "'"));
    }
  }
  if (request.pids().empty() == request.job().empty()) {
    return Bad("start needs --pid PID (one or more) or --job JOB, not both");
  }
  if (request.include_new() && request.job().empty()) {
    return Bad("--include-new goes with --job: the processes of that job that register later");
  }
  return out;
}

absl::StatusOr<StopArgs> ParseStopArgs(const std::vector<std::string>& args) {
  StopArgs out;
  if (args.size() == 2 && args[0] == "--session") {
    absl::StatusOr<uint64_t> id = ParseSessionId(args[1]);
    if (!id.ok()) return id.status();
    out.session_id = *id;
    return out;
  }
  if (args.size() == 2 && args[0] == "--pid") {
    absl::StatusOr<uint32_t> pid = ParsePid(args[1]);
    if (!pid.ok()) return pid.status();
    out.pid = *pid;
    return out;
  }
  if (args.size() == 2 && args[0] == "--job" && !args[1].empty()) {
    out.job = args[1];
    return out;
  }
  return Bad("stop takes --session SESSION, --pid PID or --job JOB");
}

}  // namespace protond::cli
