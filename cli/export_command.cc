#include "cli/export_command.h"

#include "absl/strings/str_cat.h"
#include "cli/arg_reader.h"
#include "cli/profile_commands.h"
#include "cli/progress_line.h"
#include "common/files/output_file.h"
#include "common/status/status_macros.h"
#include "view/export/chrome_trace.h"
#include "view/export/flame_graph.h"
#include "view/export/flame_svg.h"
#include "view/export/folded.h"
#include "view/export/kernel_summary.h"
#include "view/export/pprof/pprof.h"
#include "view/hatchet/hatchet_writer.h"

namespace protond::cli {
namespace {

constexpr char kFormats[] = "hatchet, hatchet_msgpack, chrome, folded, svg, csv or pprof";

// An output that exists, with what the user of protonctl can do about it.
absl::Status WithForceHint(const absl::Status& status) {
  if (!absl::IsAlreadyExists(status)) return status;
  return absl::AlreadyExistsError(
      absl::StrCat(status.message(), "; --force overwrites it, or choose another -o"));
}

absl::Status ParseExportOption(ArgReader& reader, ExportArgs* parsed, bool* has_format) {
  if (reader.Is("--format", "-F")) {
    ASSIGN_OR_RETURN(const std::string format, reader.Value());
    ASSIGN_OR_RETURN(parsed->format, ParseExportFormat(format));
    *has_format = true;
  } else if (reader.Is("-o", "--output")) {
    ASSIGN_OR_RETURN(parsed->output, reader.Value());
  } else if (reader.Is("--force")) {
    parsed->force = true;
  } else if (reader.Is("-m", "--metrics")) {
    ASSIGN_OR_RETURN(parsed->metric, reader.Value());
  } else if (reader.Is("--full-names", "--mangled")) {
    return view::ChooseKernelNames(reader.arg(), &parsed->kernel_names);
  } else {
    return reader.Profile(&parsed->profile);
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Session> FindSession(client::Client& client, uint64_t id) {
  ASSIGN_OR_RETURN(const v1::ListSessionsResponse sessions, client.ListSessions());
  for (const v1::Session& session : sessions.sessions()) {
    if (session.id() == id) return session;
  }
  return absl::NotFoundError(absl::StrCat("session ", id, " does not exist"));
}

absl::StatusOr<bool> IsTraceSession(client::Client& client, uint64_t id) {
  ASSIGN_OR_RETURN(const v1::Session session, FindSession(client, id));
  return session.data() == v1::Session::TRACE;
}

view::PprofOrigin PprofOriginOf(const ExportArgs& args, const ExportInput& input) {
  if (!input.has_session) return {args.profile};
  const v1::Session& session = input.session;
  return {absl::StrCat("session ", session.id(), " (", session.name(), ")"),
          session.start_time_unix_ns(), session.end_time_unix_ns()};
}

absl::StatusOr<v1::Trace> ReadTrace(client::Client& client, const std::string& profile,
                                    ProgressLine& progress) {
  if (!IsSessionId(profile)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--format chrome needs a session started with --data trace; ", profile,
        " is a Hatchet file, which keeps the call tree only, not the events a Chrome trace needs"));
  }
  ASSIGN_OR_RETURN(const uint64_t id, ParseSessionId(profile));
  const std::string step = absl::StrCat("reading the events of session ", id);
  progress.Step(step);
  ASSIGN_OR_RETURN(v1::Trace trace,
                   client.GetTrace(id, [&](uint64_t received_events, uint64_t event_count) {
                     progress.Fraction(step, received_events, event_count, "events");
                   }));
  if (trace.unplaced_kernel_scope_events() > 0) {
    progress.Step(absl::StrCat(
        trace.unplaced_kernel_scope_events(),
        " in-kernel scope intervals are left out: the trace has no record of their launch (lost, "
        "or their buffer was handed over after the thread launched another kernel)"));
  }
  return trace;
}

absl::StatusOr<ExportInput> ReadInput(client::Client& client, const ExportArgs& args,
                                      ProgressLine& progress) {
  ExportInput input;
  if (args.format == ExportFormat::kChrome) {
    ASSIGN_OR_RETURN(input.trace, ReadTrace(client, args.profile, progress));
    input.has_trace = true;
    return input;
  }
  progress.Step(absl::StrCat("reading the tree of ", args.profile));
  ASSIGN_OR_RETURN(input.tree, LoadProfile(client, args.profile));
  if (!IsSessionId(args.profile)) return input;
  ASSIGN_OR_RETURN(const uint64_t id, ParseSessionId(args.profile));
  if (args.format == ExportFormat::kPprof) {  // its name and times go into the profile
    ASSIGN_OR_RETURN(input.session, FindSession(client, id));
    input.has_session = true;
  }
  if (args.format != ExportFormat::kCsv) return input;
  // A trace session's events give each launch's time: the csv's median, min, max and stddev.
  ASSIGN_OR_RETURN(input.has_trace, IsTraceSession(client, id));
  if (!input.has_trace) return input;
  ASSIGN_OR_RETURN(input.trace, ReadTrace(client, args.profile, progress));
  return input;
}

}  // namespace

absl::StatusOr<ExportFormat> ParseExportFormat(const std::string& text) {
  if (text == "hatchet") return ExportFormat::kHatchet;
  if (text == "hatchet_msgpack") return ExportFormat::kHatchetMsgPack;
  if (text == "chrome") return ExportFormat::kChrome;
  if (text == "folded") return ExportFormat::kFolded;
  if (text == "svg") return ExportFormat::kSvg;
  if (text == "csv") return ExportFormat::kCsv;
  if (text == "pprof") return ExportFormat::kPprof;
  return absl::InvalidArgumentError(absl::StrCat("--format is ", kFormats, ", not '", text, "'"));
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

absl::StatusOr<ExportArgs> ParseExportArgs(const std::vector<std::string>& args) {
  ExportArgs parsed;
  bool has_format = false;
  ArgReader reader(args);
  while (reader.Next()) RETURN_IF_ERROR(ParseExportOption(reader, &parsed, &has_format));
  if (parsed.profile.empty()) {
    return absl::InvalidArgumentError("export needs a session id or a Hatchet file");
  }
  if (!has_format) {
    return absl::InvalidArgumentError(absl::StrCat("export needs --format: ", kFormats));
  }
  if (parsed.output.empty()) return absl::InvalidArgumentError("export needs -o FILE");
  return parsed;
}

absl::StatusOr<std::string> RenderExport(const ExportArgs& args, const ExportInput& input) {
  switch (args.format) {
    case ExportFormat::kHatchet:
      return view::RenderHatchet(input.tree);
    case ExportFormat::kHatchetMsgPack:
      return view::RenderHatchetMsgPack(input.tree);
    case ExportFormat::kChrome:
      return view::RenderChromeTrace(input.trace);
    case ExportFormat::kFolded: {
      ASSIGN_OR_RETURN(const view::FlameGraph graph,
                       view::BuildFlameGraph(input.tree, args.metric, args.kernel_names));
      return view::RenderFolded(graph);
    }
    case ExportFormat::kSvg: {
      ASSIGN_OR_RETURN(const view::FlameGraph graph,
                       view::BuildFlameGraph(input.tree, args.metric, args.kernel_names));
      return view::RenderFlameSvg(graph);
    }
    case ExportFormat::kCsv:
      return view::RenderKernelSummaryCsv(input.tree, args.kernel_names,
                                          input.has_trace ? &input.trace : nullptr);
    case ExportFormat::kPprof:
      return view::RenderPprof(input.tree, PprofOriginOf(args, input));
  }
  return absl::InternalError("unknown export format");
}

absl::StatusOr<std::string> ExportContents(client::Client& client, const ExportArgs& args,
                                           FILE* progress_out) {
  ProgressLine progress(progress_out, "protonctl export");
  ASSIGN_OR_RETURN(const ExportInput input, ReadInput(client, args, progress));
  progress.Step("rendering");
  return RenderExport(args, input);
}

absl::Status RunExportCommand(client::Client& client, const ExportArgs& args, FILE* progress_out) {
  const files::ExistingFile existing =
      args.force ? files::ExistingFile::kReplace : files::ExistingFile::kKeep;
  RETURN_IF_ERROR(WithForceHint(files::CheckOutputPath(args.output, existing)));
  ASSIGN_OR_RETURN(const std::string contents, ExportContents(client, args, progress_out));
  ProgressLine progress(progress_out, "protonctl export");
  progress.Step(absl::StrCat("writing ", args.output, " (", contents.size(), " bytes)"));
  return WithForceHint(files::WriteOutputFile(args.output, contents, existing));
}

}  // namespace protond::cli
