#include "view/export/export_file.h"

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "view/export/chrome_trace.h"
#include "view/export/flame_graph.h"
#include "view/export/flame_svg.h"
#include "view/export/folded.h"
#include "view/export/kernel_summary.h"
#include "view/export/pprof/pprof.h"
#include "view/hatchet/hatchet_writer.h"

namespace protond::view {
namespace {

PprofOrigin PprofOriginOf(const ExportInput& input, absl::string_view profile_name) {
  if (!input.has_session) return {std::string(profile_name)};
  const v1::Session& session = input.session;
  return {absl::StrCat("session ", session.id(), " (", session.name(), ")"),
          session.start_time_unix_ns(), session.end_time_unix_ns()};
}

}  // namespace

absl::string_view ExportFormatNames() {
  return "hatchet, hatchet_msgpack, chrome, folded, svg, csv or pprof";
}

absl::StatusOr<ExportFormat> ParseExportFormat(absl::string_view text) {
  if (text == "hatchet") return ExportFormat::kHatchet;
  if (text == "hatchet_msgpack") return ExportFormat::kHatchetMsgPack;
  if (text == "chrome") return ExportFormat::kChrome;
  if (text == "folded") return ExportFormat::kFolded;
  if (text == "svg") return ExportFormat::kSvg;
  if (text == "csv") return ExportFormat::kCsv;
  if (text == "pprof") return ExportFormat::kPprof;
  return absl::InvalidArgumentError(
      absl::StrCat("'", text, "' is not a format: ", ExportFormatNames()));
}

std::string ExportExtension(ExportFormat format) {
  switch (format) {
    case ExportFormat::kHatchet:
      return "hatchet";
    case ExportFormat::kHatchetMsgPack:
      return "hatchet_msgpack";
    case ExportFormat::kChrome:
      return "json";
    case ExportFormat::kFolded:
      return "folded";
    case ExportFormat::kSvg:
      return "svg";
    case ExportFormat::kCsv:
      return "csv";
    case ExportFormat::kPprof:
      return "pb.gz";
  }
  return "bin";
}

ExportReads ExportReadsOf(ExportFormat format, bool trace_session) {
  if (format == ExportFormat::kChrome) return {.tree = false, .trace = true};
  return {.trace = format == ExportFormat::kCsv && trace_session,
          .session = format == ExportFormat::kPprof};
}

absl::StatusOr<std::string> RenderExport(const ExportOptions& options, const ExportInput& input,
                                         absl::string_view profile_name) {
  switch (options.format) {
    case ExportFormat::kHatchet:
      return RenderHatchet(input.tree);
    case ExportFormat::kHatchetMsgPack:
      return RenderHatchetMsgPack(input.tree);
    case ExportFormat::kChrome:
      return RenderChromeTrace(input.trace);
    case ExportFormat::kFolded: {
      ASSIGN_OR_RETURN(const FlameGraph graph,
                       BuildFlameGraph(input.tree, options.metric, options.kernel_names));
      return RenderFolded(graph);
    }
    case ExportFormat::kSvg: {
      ASSIGN_OR_RETURN(const FlameGraph graph,
                       BuildFlameGraph(input.tree, options.metric, options.kernel_names));
      return RenderFlameSvg(graph);
    }
    case ExportFormat::kCsv:
      return RenderKernelSummaryCsv(input.tree, options.kernel_names,
                                    input.has_trace ? &input.trace : nullptr);
    case ExportFormat::kPprof:
      return RenderPprof(input.tree, PprofOriginOf(input, profile_name));
  }
  return absl::InternalError("unknown export format");
}

}  // namespace protond::view
