// A profile as a file other tools read (docs/export.md): Proton's Hatchet JSON or its MessagePack
// encoding, a Chrome trace, folded stacks, an SVG flame graph, a per-kernel CSV like `nsys stats`
// or a gzipped pprof profile. What each format reads and how it is rendered, for every reader:
// `protonctl export` (cli/export_command.h) and the web page's /api/export, whether protonctl ui
// or protond serves it (page_server/profile_api.h). Pure; no I/O.
#ifndef PROTOND_VIEW_EXPORT_EXPORT_FILE_H_
#define PROTOND_VIEW_EXPORT_EXPORT_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "protond.pb.h"
#include "view/tree/frame_names.h"

namespace protond::view {

enum class ExportFormat { kHatchet, kHatchetMsgPack, kChrome, kFolded, kSvg, kCsv, kPprof };

// "hatchet", "hatchet_msgpack", "chrome", "folded", "svg", "csv" or "pprof"; else
// InvalidArgumentError naming `text` and listing them: "'png' is not a format: hatchet, ...".
absl::StatusOr<ExportFormat> ParseExportFormat(absl::string_view text);

// The formats as ParseExportFormat's error lists them: "hatchet, hatchet_msgpack, ... or pprof".
absl::string_view ExportFormatNames();

// The file name extension of a format's file, without the dot: "hatchet", "hatchet_msgpack",
// "json" (chrome), "folded", "svg", "csv", "pb.gz" (pprof).
std::string ExportExtension(ExportFormat format);

struct ExportOptions {
  ExportFormat format = ExportFormat::kHatchet;
  std::string metric;  // folded and svg: the frames' metric; empty is their default
  KernelNames kernel_names = KernelNames::kShort;  // folded, svg, csv
};

// What a format reads of a session besides its tree: its events (chrome always, and csv for a
// trace session, where they give each launch's time) and the session itself (pprof: its name and
// times). chrome reads no tree.
struct ExportReads {
  bool tree = true;
  bool trace = false;
  bool session = false;
};
ExportReads ExportReadsOf(ExportFormat format, bool trace_session);

// What was read, as ExportReadsOf asked (a Hatchet file gives a tree only).
struct ExportInput {
  v1::Tree tree;
  bool has_trace = false;
  v1::Trace trace;
  bool has_session = false;
  v1::Session session;
};

// The file's contents. `profile_name` names a pprof profile that has no session (a file's path).
absl::StatusOr<std::string> RenderExport(const ExportOptions& options, const ExportInput& input,
                                         absl::string_view profile_name);

}  // namespace protond::view

#endif  // PROTOND_VIEW_EXPORT_EXPORT_FILE_H_
