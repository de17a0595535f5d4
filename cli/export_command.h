// `protonctl export`: a profile (a session of the daemon or a Hatchet file) written to a file in
// a format other tools read: Proton's Hatchet JSON (or its MessagePack encoding), a Chrome trace,
// folded stacks, an SVG flame graph, a per-kernel CSV like `nsys stats` or a gzipped pprof
// profile. See docs/export.md.
#ifndef PROTOND_CLI_EXPORT_COMMAND_H_
#define PROTOND_CLI_EXPORT_COMMAND_H_

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client-lib/cpp/client.h"
#include "protond.pb.h"
#include "view/tree/frame_names.h"

namespace protond::cli {

enum class ExportFormat { kHatchet, kHatchetMsgPack, kChrome, kFolded, kSvg, kCsv, kPprof };

struct ExportArgs {
  std::string profile;
  ExportFormat format = ExportFormat::kHatchet;  // --format, required
  std::string output;                            // -o, required; "-" is stdout
  bool force = false;                            // --force: replace an existing regular file
  std::string metric;                            // -m: folded and svg; empty is their default
  view::KernelNames kernel_names =
      view::KernelNames::kShort;  // --full-names, --mangled: folded, svg, csv
};

// --format's value: "hatchet", "hatchet_msgpack", "chrome", "folded", "svg", "csv" or "pprof"; else
// InvalidArgumentError listing them.
absl::StatusOr<ExportFormat> ParseExportFormat(const std::string& text);

// The file name extension of a format's file, without the dot: "hatchet", "hatchet_msgpack",
// "json" (chrome),
// "folded", "svg", "csv", "pb.gz" (pprof).
std::string ExportExtension(ExportFormat format);

// `export PROFILE --format F -o FILE [--force] [-m METRIC] [--full-names | --mangled]`;
// InvalidArgumentError says what is wrong with them.
absl::StatusOr<ExportArgs> ParseExportArgs(const std::vector<std::string>& args);

// What an export reads: the profile's tree (all formats but chrome) and, for a trace session,
// its events (chrome, and csv where they give the launch-time distribution).
struct ExportInput {
  v1::Tree tree;
  bool has_trace = false;
  v1::Trace trace;
  // pprof: the session's name and times; a Hatchet file has none (has_session false).
  bool has_session = false;
  v1::Session session;
};

// The file's contents from what was read; `args.profile` names it in a pprof profile that has
// no session.
absl::StatusOr<std::string> RenderExport(const ExportArgs& args, const ExportInput& input);

// Reads the profile and renders it: the file's bytes (args.output is not used). Each step is
// announced on `progress_out` when it is not null ("reading the events of session 7: 42% (...)",
// see progress_line.h). `protonctl export` and the web page's /api/export both call it.
absl::StatusOr<std::string> ExportContents(client::Client& client, const ExportArgs& args,
                                           FILE* progress_out);

// Reads the profile, renders it and writes args.output (common/files/output_file.h), with
// ExportContents' progress: protonctl passes stderr when stderr is a terminal.
absl::Status RunExportCommand(client::Client& client, const ExportArgs& args, FILE* progress_out);

}  // namespace protond::cli

#endif  // PROTOND_CLI_EXPORT_COMMAND_H_
