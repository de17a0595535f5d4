// `protonctl ui`: the web page for the calling user (docs/web.md), served on 127.0.0.1 until
// SIGINT or SIGTERM. The parts are in cli/ui/.
#ifndef PROTOND_CLI_UI_COMMAND_H_
#define PROTOND_CLI_UI_COMMAND_H_

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client-lib/cpp/client.h"

namespace protond::cli {

struct UiArgs {
  int port = 0;         // --port; 0: a free port
  std::string web_dir;  // --web-dir; "": page_server::DefaultWebDir()
};

// `ui [--port P] [--web-dir DIR]`; InvalidArgumentError says what is wrong with them.
absl::StatusOr<UiArgs> ParseUiArgs(const std::vector<std::string>& args);

// Checks the page's directory, listens, writes "protonctl ui: http://127.0.0.1:PORT/?token=T" and
// a newline to `out` (flushed), and answers requests until SIGINT or SIGTERM; then OK, once the
// requests in flight are answered. Installs its own handler for both signals (once per process).
// `nodes`: the daemon it reads, or --hosts' each, for the Job page only (cli/ui/api.h).
absl::Status RunUiCommand(const std::vector<client::Client*>& nodes, const UiArgs& args, FILE* out);

}  // namespace protond::cli

#endif  // PROTOND_CLI_UI_COMMAND_H_
