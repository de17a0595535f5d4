// `protonctl export`: a profile (a session of the daemon or a Hatchet file) written to a file in
// a format other tools read (view/export/export_file.h, docs/export.md).
#ifndef PROTOND_CLI_EXPORT_COMMAND_H_
#define PROTOND_CLI_EXPORT_COMMAND_H_

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client-lib/cpp/client.h"
#include "protond.pb.h"
#include "view/export/export_file.h"

namespace protond::cli {

struct ExportArgs {
  std::string profile;
  view::ExportOptions options;  // --format (required), -m, --full-names, --mangled
  std::string output;           // -o, required; "-" is stdout
  bool force = false;           // --force: replace an existing regular file
};

// `export PROFILE --format F -o FILE [--force] [-m METRIC] [--full-names | --mangled]`;
// InvalidArgumentError says what is wrong with them.
absl::StatusOr<ExportArgs> ParseExportArgs(const std::vector<std::string>& args);

// Reads the profile (a session, or a Hatchet file) and renders it (view/export/export_file.h):
// the file's bytes (args.output is not used). Each step is announced on `progress_out` when it is
// not null ("reading the events of session 7: 42% (...)", see progress_line.h).
absl::StatusOr<std::string> ExportContents(client::Client& client, const ExportArgs& args,
                                           FILE* progress_out);

// Reads the profile, renders it and writes args.output (common/files/output_file.h), with
// ExportContents' progress: protonctl passes stderr when stderr is a terminal.
absl::Status RunExportCommand(client::Client& client, const ExportArgs& args, FILE* progress_out);

}  // namespace protond::cli

#endif  // PROTOND_CLI_EXPORT_COMMAND_H_
