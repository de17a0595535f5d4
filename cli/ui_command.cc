#include "cli/ui_command.h"

#include <semaphore.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/arg_reader.h"
#include "cli/ui/router.h"
#include "common/status/status_macros.h"
#include "page_server/http_server.h"
#include "page_server/page_files.h"
#include "page_server/token.h"

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

// Posted by the handler of SIGINT and SIGTERM (sem_post is async-signal-safe). A handler rather
// than sigwait: gRPC's threads, started with the Client before this command, do not block the
// signals, and one of them taking a signal with its default action would end the process.
sem_t g_stop_signals;

void OnStopSignal(int) { sem_post(&g_stop_signals); }

void CatchStopSignals() {
  sem_init(&g_stop_signals, /*pshared=*/0, /*value=*/0);
  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void WaitForStopSignal() {
  while (sem_wait(&g_stop_signals) != 0 && errno == EINTR) {
  }
}

}  // namespace

absl::StatusOr<UiArgs> ParseUiArgs(const std::vector<std::string>& args) {
  UiArgs parsed;
  ArgReader reader(args);
  while (reader.Next()) RETURN_IF_ERROR(ParseUiOption(reader, &parsed));
  return parsed;
}

absl::Status RunUiCommand(const std::vector<client::Client*>& nodes, const UiArgs& args,
                          FILE* out) {
  std::string web_dir = args.web_dir;
  if (web_dir.empty()) {
    ASSIGN_OR_RETURN(web_dir, page_server::DefaultWebDir());
  }
  RETURN_IF_ERROR(page_server::CheckPageDirectory(web_dir));
  ASSIGN_OR_RETURN(const std::string token, page_server::NewToken());
  CatchStopSignals();
  const ui::Router router(token, web_dir, nodes);
  page_server::HttpServerOptions options;
  options.listen = absl::StrCat("127.0.0.1:", args.port);
  ASSIGN_OR_RETURN(
      const std::unique_ptr<page_server::HttpServer> server,
      page_server::HttpServer::Start(options, [&router](const page_server::Request& request) {
        return router.Answer(request);
      }));
  std::fprintf(out, "protonctl ui: http://127.0.0.1:%d/?token=%s\n", server->port(), token.c_str());
  std::fflush(out);
  WaitForStopSignal();
  return absl::OkStatus();
}

}  // namespace protond::cli
