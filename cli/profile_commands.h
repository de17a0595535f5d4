// `protonctl tree` and `protonctl top`: the arguments (proton-viewer's, for tree) and the text
// they print, for a profile that is a session of the daemon or a Hatchet file.
#ifndef PROTOND_CLI_PROFILE_COMMANDS_H_
#define PROTOND_CLI_PROFILE_COMMANDS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cli/history_command.h"
#include "client-lib/cpp/client.h"
#include "common/text/session_id.h"
#include "protond.pb.h"
#include "view/tree/profile_view.h"
#include "view/tree/top_kernels.h"

namespace protond::cli {

// A session id: a positive number; else InvalidArgumentError pointing at `protonctl sessions`.
using text::ParseSessionId;

// Whether `profile` names a session (all digits) rather than a file.
bool IsSessionId(const std::string& profile);

// A session id (all digits) from the daemon, else a Hatchet file ("./7" is a file called 7).
// With `rank`, only what the session's processes of that RANK contributed (sessions only); with
// `instructions`, a session's PC-sampled instructions under their lines (a Hatchet file has none).
absl::StatusOr<v1::Tree> LoadProfile(client::Client& client, const std::string& profile,
                                     const std::string& rank = "", bool instructions = false);

struct TreeArgs {
  std::string profile;
  std::string diff_profile;   // --diff: shown as profile - diff_profile
  std::string rank;           // --rank: one rank of a job's session
  std::string job;            // --job: the job's ranks on every node (cli/fan_out/), no profile
  bool list_metrics = false;  // -l
  bool follow = false;        // --follow: redrawn while the session runs
  // --since/--until (with --pid, --job or --command): the always-on windows that started in the
  // range, merged into one tree, in place of a profile.
  bool window_range = false;
  HistoryArgs windows;
  // --diff --since T [--until T]: what moved between that range and `windows`' (the same
  // --pid, --job or --command), listed by share of GPU time past -t (default 5%).
  bool diff_range = false;
  HistoryArgs diff_windows;
  view::ViewOptions view;
};

// `tree PROFILE [-m M] [-d N] [-t F] [-i RE | -e RE] [-f FORMAT] [--print-sorted] [--diff OTHER]
// [--full-names | --mangled] [-l] [--rank R] [--follow]`, `tree --job JOB [-m M] [-d N]
// [--full-names | --mangled]`, or over always-on windows `tree (--pid P | --job J | --command RE)
// --since T [--until T] [view options] [--diff --since T [--until T] [-t P%]]` (T as for
// history, resolved against `now`). -t takes a fraction or a percentage ("5%").
// InvalidArgumentError says what is wrong with them.
absl::StatusOr<TreeArgs> ParseTreeArgs(const std::vector<std::string>& args, absl::Time now);

// The tree (or with -l the metric names, one a line).
absl::StatusOr<std::string> RenderTreeCommand(client::Client& client, const TreeArgs& args);

// How often --follow redraws.
inline constexpr absl::Duration kFollowInterval = absl::Seconds(1);

// --follow: while session `args.profile` runs, its tree every `interval` (with `args`' options),
// each as one frame for `show`: a heading ("session 7 (train), running: 1234 records; redrawn
// every 1s, Ctrl-C leaves the session running") and the tree. When the session has stopped, a
// last frame with everything it recorded, headed "... stopped: ..."; a session that had stopped
// already gets that frame alone. Ends early, with OK, once `keep_going` returns false (it is
// asked about every 50 ms while waiting).
absl::Status FollowTree(client::Client& client, const TreeArgs& args, absl::Duration interval,
                        const std::function<bool()>& keep_going,
                        const std::function<void(const std::string& frame)>& show);

struct TopArgs {
  std::string profile;
  int limit = view::kDefaultTopKernels;                        // -n
  view::KernelNames kernel_names = view::KernelNames::kShort;  // --full-names, --mangled
  bool stalls = false;       // the sampled lines with the most stalls, not the kernels
  bool collectives = false;  // the NCCL collectives, not the kernels
};

// `top PROFILE [-n N] [--full-names | --mangled] [--stalls | --collectives]`.
absl::StatusOr<TopArgs> ParseTopArgs(const std::vector<std::string>& args);

// For a session whose processes' NCCL profiler plugin recorded collective calls, --collectives
// shows those, with bytes and bus bandwidth; otherwise (and for a file) the NCCL kernels by name.
absl::StatusOr<std::string> RenderTopCommand(client::Client& client, const TopArgs& args);

// top --collectives from the plugin's calls: a row per (op, communicator), heaviest first, at most
// `limit`, with bytes and bus bandwidth (view/jobs/collective_table.h). Pure.
std::string RenderPluginTopCollectives(const v1::Collectives& collectives, int limit);

}  // namespace protond::cli

#endif  // PROTOND_CLI_PROFILE_COMMANDS_H_
