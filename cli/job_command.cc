#include "cli/job_command.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "cli/client_profile_source.h"
#include "cli/follow.h"
#include "cli/profile_commands.h"
#include "common/status/status_macros.h"

namespace protond::cli {

absl::StatusOr<JobArgs> ParseJobArgs(const std::vector<std::string>& args) {
  JobArgs parsed;
  bool have_session = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--follow") {
      parsed.follow = true;
    } else if (args[i] == "--job") {
      if (i + 1 >= args.size() || args[i + 1].empty()) {
        return absl::InvalidArgumentError("--job needs a job id");
      }
      parsed.job = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", args[i], "'"));
    } else if (have_session) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", args[i], "'"));
    } else {
      ASSIGN_OR_RETURN(parsed.session_id, ParseSessionId(args[i]));
      have_session = true;
    }
  }
  if (have_session == !parsed.job.empty()) {
    return absl::InvalidArgumentError("give a session id or --job JOB (one of them)");
  }
  return parsed;
}

absl::StatusOr<page_server::JobReport> RunJobCommand(const std::vector<client::Client*>& nodes,
                                                     const JobArgs& args) {
  if (nodes.size() > 1 && args.job.empty()) {
    return absl::InvalidArgumentError(
        "on several hosts, name the job with --job JOB: a session id is one host's");
  }
  const ClientJobNodes job_nodes(nodes);
  if (!args.job.empty()) return page_server::ReadJobReport(job_nodes.nodes(), args.job);
  ASSIGN_OR_RETURN(v1::Session session, nodes.front()->GetSession(args.session_id));
  return page_server::ReadSessionReport(job_nodes.nodes().front(), std::move(session));
}

std::string RenderJobVerdict(const std::vector<client::Client*>& nodes, const std::string& job) {
  absl::StatusOr<page_server::JobReport> report = RunJobCommand(nodes, {.job = job});
  if (!report.ok()) return absl::StrCat("no verdict: ", report.status().message(), "\n");
  return report->verdict;
}

absl::Status FollowJob(const std::vector<client::Client*>& nodes, const JobArgs& args,
                       absl::Duration interval, const std::function<bool()>& keep_going,
                       const std::function<void(const std::string& frame)>& show) {
  const std::string followed =
      args.job.empty() ? absl::StrCat("session ", args.session_id) : absl::StrCat("job ", args.job);
  return FollowFrames(
      interval,
      [&]() -> absl::StatusOr<FollowFrame> {
        ASSIGN_OR_RETURN(const page_server::JobReport report, RunJobCommand(nodes, args));
        const std::string heading =
            report.recording ? absl::StrCat(followed, ", recording: redrawn every ",
                                            absl::FormatDuration(interval), ", Ctrl-C leaves ",
                                            args.job.empty() ? "it" : "its sessions", " running")
                             : absl::StrCat(followed, ", stopped");
        std::string left_out;
        for (const std::string& node : report.left_out) {
          absl::StrAppend(&left_out, "left out ", node, "\n");
        }
        return FollowFrame{absl::StrCat(heading, "\n", left_out, "\n", report.text),
                           report.recording};
      },
      keep_going, show);
}

}  // namespace protond::cli
