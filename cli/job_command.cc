#include "cli/job_command.h"

#include <unistd.h>

#include <array>
#include <climits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/fan_out/job_tree_command.h"
#include "cli/follow.h"
#include "cli/profile_commands.h"
#include "common/status/status_macros.h"
#include "view/history/window_selection.h"
#include "view/jobs/collective_summary.h"
#include "view/jobs/match.h"
#include "view/jobs/time_text.h"
#include "view/jobs/validate.h"
#include "view/jobs/verdict.h"
#include "view/jobs/verdict_text.h"
#include "view/render/text_table.h"

namespace protond::cli {
namespace {

constexpr std::array<view::TableColumn, 8> kSummaryColumns = {{
    {"COLLECTIVE", false},
    {"CALLS", true},
    {"JUDGED", true},
    {"RANK TIME", true},
    {"TRANSFER", true},
    {"WAIT", true},
    {"ALGORITHM", false},
    {"PROTOCOL", false},
}};

std::string SummaryTable(const view::MatchedJob& matched) {
  std::vector<std::vector<std::string>> rows;
  for (const view::CollectiveSummary& summary : view::SummarizeCollectives(matched)) {
    rows.push_back({std::string(view::CollectiveOpName(summary.op)), absl::StrCat(summary.calls),
                    absl::StrCat(summary.judged_calls),
                    view::FormatTimeNs(static_cast<double>(summary.rank_time_ns)),
                    view::FormatTimeNs(static_cast<double>(summary.transfer_ns)),
                    view::FormatTimeNs(static_cast<double>(summary.wait_ns)),
                    summary.algorithm.empty() ? "-" : summary.algorithm,
                    summary.protocol.empty() ? "-" : summary.protocol});
  }
  return view::RenderTextTable(kSummaryColumns, rows);
}

std::string Heading(std::span<const view::TracedSession> sessions, const std::string& job,
                    int nranks) {
  std::vector<uint64_t> ids;
  for (const view::TracedSession& session : sessions) ids.push_back(session.session->id());
  return absl::StrCat(job.empty() ? "" : absl::StrCat("job ", job, ": "),
                      ids.size() == 1 ? "session " : "sessions ", absl::StrJoin(ids, ", "), ", ",
                      nranks, nranks == 1 ? " rank" : " ranks",
                      " with NCCL kernels, matched in launch order (bytes unknown: no "
                      "bandwidth)\n");
}

// A communicator's calls that a rank left, or that no rank reported: they are not judged.
void AddMatchProblems(const view::MatchedJob& matched, std::vector<std::string>& problems) {
  for (const view::CommunicatorCalls& comm : matched.communicators) {
    uint64_t incomplete = 0;
    for (const view::MatchedCall& call : comm.calls) incomplete += call.complete ? 0 : 1;
    if (incomplete > 0) {
      problems.push_back(absl::StrCat(incomplete, " of ", comm.calls.size(),
                                      " calls lack a rank and are not judged"));
    }
    for (const view::MatchedCall& call : comm.calls) {
      if (!call.refused.empty()) {
        problems.push_back(absl::StrCat("calls are not compared: ", call.refused));
        break;
      }
    }
  }
}

// This machine's name, for the ranks of the daemon at the local socket.
std::string HostOf(const client::Endpoint& endpoint) {
  if (!endpoint.host.empty()) return endpoint.host;
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

absl::Status RequireTrace(const v1::Session& session) {
  if (session.data() == v1::Session::TRACE) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "session ", session.id(),
      " has no per-kernel times: record it with `protonctl run --data trace ...` (the NCCL "
      "profiler plugin that will not need it is issue 32's next step)"));
}

absl::StatusOr<std::vector<v1::Session>> SessionsOf(client::Client& client, const JobArgs& args) {
  if (args.job.empty()) {
    ASSIGN_OR_RETURN(v1::Session session, client.GetSession(args.session_id));
    RETURN_IF_ERROR(RequireTrace(session));
    return std::vector<v1::Session>{std::move(session)};
  }
  ASSIGN_OR_RETURN(const v1::ListSessionsResponse listed, client.ListSessions());
  std::vector<v1::Session> sessions;
  for (const v1::Session& session : listed.sessions()) {
    if (view::IsSessionOfJob(session, args.job)) sessions.push_back(session);
  }
  if (sessions.empty()) {
    return absl::NotFoundError(absl::StrCat("no session of job ", args.job, " here"));
  }
  for (const v1::Session& session : sessions) RETURN_IF_ERROR(RequireTrace(session));
  return sessions;
}

struct JobReport {
  std::string text;
  bool recording = false;  // a session of it still runs
};

absl::StatusOr<JobReport> ReadJobReport(client::Client& client, const JobArgs& args) {
  ASSIGN_OR_RETURN(const std::vector<v1::Session> sessions, SessionsOf(client, args));
  JobReport report;
  std::vector<v1::Trace> traces;
  traces.reserve(sessions.size());
  for (const v1::Session& session : sessions) {
    report.recording = report.recording || session.state() == v1::Session::RUNNING;
    ASSIGN_OR_RETURN(v1::Trace trace, client.GetTrace(session.id()));
    traces.push_back(std::move(trace));
  }
  const std::string host = HostOf(client.endpoint());
  std::vector<view::TracedSession> traced;
  for (size_t i = 0; i < sessions.size(); ++i) traced.push_back({&sessions[i], &traces[i], host});
  report.text = RenderJobReport(traced, args.job);
  return report;
}

}  // namespace

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

std::string RenderJobReport(std::span<const view::TracedSession> sessions, const std::string& job) {
  const view::LaunchOrderRecords records = view::CollectivesFromKernelOrder(sessions, "");
  std::string out = Heading(sessions, job, records.nranks);
  std::vector<std::string> problems = records.problems;
  if (records.records.empty()) {
    absl::StrAppend(&out, "no NCCL collective kernels: nothing to match\n");
  } else {
    view::ValidatedCollectives valid = view::ValidateCollectives(records.records, "");
    const view::MatchedJob matched = view::MatchCollectives(valid.records, {});
    const view::JobVerdict verdict = view::JudgeJob(matched, {});
    absl::StrAppend(&out, view::RenderVerdict(verdict.job), "\n\n", SummaryTable(matched));
    for (std::string& message : valid.stats.messages) problems.push_back(std::move(message));
    AddMatchProblems(matched, problems);
  }
  if (!problems.empty()) {
    absl::StrAppend(&out, "problems:\n");
    for (const std::string& problem : problems) absl::StrAppend(&out, "  ", problem, "\n");
  }
  return out;
}

absl::StatusOr<std::string> RunJobCommand(client::Client& client, const JobArgs& args) {
  ASSIGN_OR_RETURN(const JobReport report, ReadJobReport(client, args));
  return report.text;
}

absl::Status FollowJob(client::Client& client, const JobArgs& args, absl::Duration interval,
                       const std::function<bool()>& keep_going,
                       const std::function<void(const std::string& frame)>& show) {
  const std::string followed =
      args.job.empty() ? absl::StrCat("session ", args.session_id) : absl::StrCat("job ", args.job);
  return FollowFrames(
      interval,
      [&]() -> absl::StatusOr<FollowFrame> {
        ASSIGN_OR_RETURN(const JobReport report, ReadJobReport(client, args));
        const std::string heading =
            report.recording ? absl::StrCat(followed, ", recording: redrawn every ",
                                            absl::FormatDuration(interval), ", Ctrl-C leaves ",
                                            args.job.empty() ? "it" : "its sessions", " running")
                             : absl::StrCat(followed, ", stopped");
        return FollowFrame{absl::StrCat(heading, "\n\n", report.text), report.recording};
      },
      keep_going, show);
}

}  // namespace protond::cli
