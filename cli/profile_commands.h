// `protonctl tree` and `protonctl top`: the arguments (proton-viewer's, for tree) and the text
// they print, for a profile that is a session of the daemon or a Hatchet file.
#ifndef PROTOND_CLI_PROFILE_COMMANDS_H_
#define PROTOND_CLI_PROFILE_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/viewer/profile_view.h"
#include "cli/viewer/top_kernels.h"
#include "client-lib/cpp/client.h"
#include "protond.pb.h"

namespace protond::cli {

// A session id: a positive number; else InvalidArgumentError pointing at `protonctl sessions`.
absl::StatusOr<uint64_t> ParseSessionId(const std::string& text);

// Whether `profile` names a session (all digits) rather than a file.
bool IsSessionId(const std::string& profile);

// A session id (all digits) from the daemon, else a Hatchet file ("./7" is a file called 7).
// With `rank`, only what the session's processes of that RANK contributed (sessions only).
absl::StatusOr<v1::Tree> LoadProfile(client::Client& client, const std::string& profile,
                                     const std::string& rank = "");

struct TreeArgs {
  std::string profile;
  std::string diff_profile;   // --diff: shown as profile - diff_profile
  std::string rank;           // --rank: one rank of a job's session
  bool list_metrics = false;  // -l
  ViewOptions view;
};

// `tree PROFILE [-m M] [-d N] [-t F] [-i RE | -e RE] [-f FORMAT] [--print-sorted] [--diff OTHER]
// [--mangled] [-l] [--rank R]`; InvalidArgumentError says what is wrong with them.
absl::StatusOr<TreeArgs> ParseTreeArgs(const std::vector<std::string>& args);

// The tree (or with -l the metric names, one a line).
absl::StatusOr<std::string> RenderTreeCommand(client::Client& client, const TreeArgs& args);

struct TopArgs {
  std::string profile;
  int limit = kDefaultTopKernels;  // -n
  bool mangled = false;
};

// `top PROFILE [-n N] [--mangled]`.
absl::StatusOr<TopArgs> ParseTopArgs(const std::vector<std::string>& args);

absl::StatusOr<std::string> RenderTopCommand(client::Client& client, const TopArgs& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_PROFILE_COMMANDS_H_
