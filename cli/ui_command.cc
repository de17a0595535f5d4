#include "cli/ui_command.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/arg_reader.h"
#include "cli/ui/http_server.h"
#include "cli/ui/page_files.h"
#include "cli/ui/router.h"
#include "cli/ui/token.h"
#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

absl::Status ParseUiOption(ArgReader& reader, UiArgs* parsed) {
  if (reader.Is("--port")) {
    ASSIGN_OR_RETURN(const std::string text, reader.Value());
    if (!absl::SimpleAtoi(text, &parsed->port) || parsed->port < 0 || parsed->port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("--port needs a number from 0 to 65535, not '", text, "'"));
    }
  } else if (reader.Is("--web-dir")) {
    ASSIGN_OR_RETURN(parsed->web_dir, reader.Value());
  } else {
    std::string unexpected;
    RETURN_IF_ERROR(reader.Profile(&unexpected));
    return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", unexpected, "'"));
  }
  return absl::OkStatus();
}

sigset_t StopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

absl::StatusOr<UiArgs> ParseUiArgs(const std::vector<std::string>& args) {
  UiArgs parsed;
  ArgReader reader(args);
  while (reader.Next()) RETURN_IF_ERROR(ParseUiOption(reader, &parsed));
  return parsed;
}

absl::StatusOr<std::string> DefaultWebDir() {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) return absl::InternalError("cannot find this protonctl's own path");
  const std::string path(self, length);
  return absl::StrCat(path.substr(0, path.rfind('/')), "/../share/protond/web");
}

absl::Status RunUiCommand(client::Client& client, const UiArgs& args, FILE* out) {
  std::string web_dir = args.web_dir;
  if (web_dir.empty()) {
    ASSIGN_OR_RETURN(web_dir, DefaultWebDir());
  }
  RETURN_IF_ERROR(ui::CheckPageDirectory(web_dir));
  ASSIGN_OR_RETURN(const std::string token, ui::NewToken());
  const sigset_t stop = StopSignals();
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  const ui::Router router(token, web_dir, client);
  ASSIGN_OR_RETURN(const std::unique_ptr<ui::HttpServer> server,
                   ui::HttpServer::Start(args.port, router));
  std::fprintf(out, "protonctl ui: http://127.0.0.1:%d/?token=%s\n", server->port(), token.c_str());
  std::fflush(out);
  int signal_number = 0;
  while (sigwait(&stop, &signal_number) != 0) {
  }
  return absl::OkStatus();
}

}  // namespace protond::cli
