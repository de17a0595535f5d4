#include "cli/export_command.h"

#include "absl/strings/str_cat.h"
#include "cli/arg_reader.h"
#include "cli/profile_commands.h"
#include "cli/progress_line.h"
#include "common/files/output_file.h"
#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

// An output that exists, with what the user of protonctl can do about it.
absl::Status WithForceHint(const absl::Status& status) {
  if (!absl::IsAlreadyExists(status)) return status;
  return absl::AlreadyExistsError(
      absl::StrCat(status.message(), "; --force overwrites it, or choose another -o"));
}

absl::Status ParseExportOption(ArgReader& reader, ExportArgs* parsed, bool* has_format) {
  if (reader.Is("--format", "-F")) {
    ASSIGN_OR_RETURN(const std::string format, reader.Value());
    absl::StatusOr<view::ExportFormat> parsed_format = view::ParseExportFormat(format);
    if (!parsed_format.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--format: ", parsed_format.status().message()));
    }
    parsed->options.format = *parsed_format;
    *has_format = true;
  } else if (reader.Is("-o", "--output")) {
    ASSIGN_OR_RETURN(parsed->output, reader.Value());
  } else if (reader.Is("--force")) {
    parsed->force = true;
  } else if (reader.Is("-m", "--metrics")) {
    ASSIGN_OR_RETURN(parsed->options.metric, reader.Value());
  } else if (reader.Is("--full-names", "--mangled")) {
    return view::ChooseKernelNames(reader.arg(), &parsed->options.kernel_names);
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

absl::StatusOr<view::ExportInput> ReadInput(client::Client& client, const ExportArgs& args,
                                            ProgressLine& progress) {
  view::ExportInput input;
  if (!IsSessionId(args.profile)) {
    if (args.options.format == view::ExportFormat::kChrome) {  // a file has no events
      return ReadTrace(client, args.profile, progress).status();
    }
    progress.Step(absl::StrCat("reading the tree of ", args.profile));
    ASSIGN_OR_RETURN(input.tree, LoadProfile(client, args.profile));
    return input;
  }
  ASSIGN_OR_RETURN(const uint64_t id, ParseSessionId(args.profile));
  ASSIGN_OR_RETURN(const v1::Session session, FindSession(client, id));
  const view::ExportReads reads =
      view::ExportReadsOf(args.options.format, session.data() == v1::Session::TRACE);
  if (reads.tree) {
    progress.Step(absl::StrCat("reading the tree of ", args.profile));
    ASSIGN_OR_RETURN(input.tree, LoadProfile(client, args.profile));
  }
  if (reads.trace) {
    ASSIGN_OR_RETURN(input.trace, ReadTrace(client, args.profile, progress));
    input.has_trace = true;
  }
  if (reads.session) {
    input.session = session;
    input.has_session = true;
  }
  return input;
}

}  // namespace

absl::StatusOr<ExportArgs> ParseExportArgs(const std::vector<std::string>& args) {
  ExportArgs parsed;
  bool has_format = false;
  ArgReader reader(args);
  while (reader.Next()) RETURN_IF_ERROR(ParseExportOption(reader, &parsed, &has_format));
  if (parsed.profile.empty()) {
    return absl::InvalidArgumentError("export needs a session id or a Hatchet file");
  }
  if (!has_format) {
    return absl::InvalidArgumentError(
        absl::StrCat("export needs --format: ", view::ExportFormatNames()));
  }
  if (parsed.output.empty()) return absl::InvalidArgumentError("export needs -o FILE");
  return parsed;
}

absl::StatusOr<std::string> ExportContents(client::Client& client, const ExportArgs& args,
                                           FILE* progress_out) {
  ProgressLine progress(progress_out, "protonctl export");
  ASSIGN_OR_RETURN(const view::ExportInput input, ReadInput(client, args, progress));
  progress.Step("rendering");
  return view::RenderExport(args.options, input, args.profile);
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
