#include "cli/job_command.h"

#include <unistd.h>

#include <climits>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/fan_out/host_clocks.h"
#include "cli/fan_out/job_tree_command.h"
#include "cli/follow.h"
#include "cli/profile_commands.h"
#include "common/status/status_macros.h"
#include "view/history/window_selection.h"
#include "view/jobs/collective_table.h"
#include "view/jobs/match.h"
#include "view/jobs/plugin_records.h"
#include "view/jobs/time_text.h"
#include "view/jobs/validate.h"
#include "view/jobs/verdict.h"
#include "view/jobs/verdict_text.h"

namespace protond::cli {
namespace {

// A report in its three parts, printed one after the other: `tree --job` prints the verdict alone.
struct ReportParts {
  std::string heading;
  std::string verdict;  // the clock offsets, the verdict and where the arrivals were timed
  std::string details;  // the per-collective table, then the problems

  std::string Text() const { return heading + verdict + details; }
};

// Where the records came from, which decides the heading and the summary's columns.
enum class RecordSource { kKernelOrder, kPlugin };

std::string Heading(std::span<const uint64_t> session_ids, const std::string& job, int nranks,
                    RecordSource source) {
  return absl::StrCat(
      job.empty() ? "" : absl::StrCat("job ", job, ": "),
      session_ids.size() == 1 ? "session " : "sessions ", absl::StrJoin(session_ids, ", "), ", ",
      nranks, nranks == 1 ? " rank" : " ranks",
      source == RecordSource::kPlugin
          ? " with NCCL collectives, matched by communicator and call number from NCCL's "
            "profiler plugin (with bytes and bus bandwidth)\n"
          : " with NCCL kernels, matched in launch order (bytes unknown: no bandwidth)\n");
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

// Without the plugin's records, the kernels in launch order need every kernel's times.
absl::Status RequireTrace(const v1::Session& session) {
  if (session.data() == v1::Session::TRACE) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("session ", session.id(),
                   " has no per-kernel times: record it with `protonctl run --data trace ...`, or "
                   "run the job with NCCL 2.23 or later, where the shim's NCCL profiler plugin "
                   "records its collective calls in any session"));
}

absl::StatusOr<std::vector<v1::Session>> SessionsOf(client::Client& client, const JobArgs& args) {
  if (args.job.empty()) {
    ASSIGN_OR_RETURN(v1::Session session, client.GetSession(args.session_id));
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
  return sessions;
}

// The clock offsets and the verdict (`verdict`), then the summary and the problems (`details`) on
// `records`, `problems` first. A lateness within the offsets' error names no rank.
ReportParts JudgeRecords(std::string heading,
                         const std::vector<view::CollectiveRecordUntrusted>& records,
                         std::vector<std::string> problems, RecordSource source,
                         const view::HostClocks& clocks) {
  ReportParts out{std::move(heading), view::RenderHostClocks(clocks), ""};
  if (records.empty()) {
    absl::StrAppend(&out.verdict, source == RecordSource::kPlugin
                                      ? "no NCCL collective calls: nothing to match\n"
                                      : "no NCCL collective kernels: nothing to match\n");
  } else {
    view::ValidatedCollectives valid = view::ValidateCollectives(records, "");
    const view::MatchedJob matched = view::MatchCollectives(valid.records, clocks.ToMatchOptions());
    const view::JobVerdict verdict =
        view::JudgeJob(matched, {.clock_error_ns = clocks.MaxErrorNs()});
    absl::StrAppend(&out.verdict, view::RenderVerdict(verdict.job), "\n");
    if (source == RecordSource::kPlugin) {
      absl::StrAppend(&out.verdict, view::RenderArrivalClock(matched), "\n");
    }
    absl::StrAppend(&out.details, "\n",
                    view::RenderCollectiveTable(matched, source == RecordSource::kPlugin));
    for (std::string& message : valid.stats.messages) problems.push_back(std::move(message));
    AddMatchProblems(matched, problems);
  }
  if (!problems.empty()) {
    absl::StrAppend(&out.details, "problems:\n");
    for (const std::string& problem : problems) absl::StrAppend(&out.details, "  ", problem, "\n");
  }
  return out;
}

ReportParts KernelOrderReport(std::span<const view::TracedSession> sessions, const std::string& job,
                              const view::HostClocks& clocks) {
  const view::LaunchOrderRecords records = view::CollectivesFromKernelOrder(sessions, "");
  std::vector<uint64_t> ids;
  for (const view::TracedSession& session : sessions) ids.push_back(session.session->id());
  return JudgeRecords(Heading(ids, job, records.nranks, RecordSource::kKernelOrder),
                      records.records, records.problems, RecordSource::kKernelOrder, clocks);
}

ReportParts PluginReport(std::span<const view::PluginSession> sessions, const std::string& job,
                         const view::HostClocks& clocks) {
  const std::vector<view::CollectiveRecordUntrusted> records =
      view::CollectivesFromPlugin(sessions, "");
  std::vector<uint64_t> ids;
  for (const view::PluginSession& session : sessions) ids.push_back(session.session->id());
  // The ranks are the processes with calls; a process in several communicators counts once.
  std::set<view::ProcessId> processes;
  for (const view::CollectiveRecordUntrusted& record : records) {
    processes.insert({record.host, record.pid});
  }
  return JudgeRecords(Heading(ids, job, static_cast<int>(processes.size()), RecordSource::kPlugin),
                      records, {}, RecordSource::kPlugin, clocks);
}

// One node's daemon and the sessions read from it.
struct NodeSessions {
  client::Client* client = nullptr;
  std::string host;
  std::vector<v1::Session> sessions;
};

// The plugin's records where any session has them; else NCCL's kernels from the traces.
absl::StatusOr<ReportParts> ReadAndRender(const std::vector<NodeSessions>& nodes,
                                          const std::string& job, const view::HostClocks& clocks) {
  // Each session's answers, in the nodes' order; the vectors are sized first, as the views below
  // point into them.
  size_t count = 0;
  for (const NodeSessions& node : nodes) count += node.sessions.size();
  std::vector<v1::Collectives> collectives(count);
  bool any_plugin_records = false;
  std::vector<view::PluginSession> plugin;
  for (const NodeSessions& node : nodes) {
    for (const v1::Session& session : node.sessions) {
      v1::Collectives& calls = collectives[plugin.size()];
      ASSIGN_OR_RETURN(calls, node.client->GetCollectives(session.id()));
      any_plugin_records = any_plugin_records || calls.events_size() > 0;
      plugin.push_back({&session, &calls, node.host});
    }
  }
  if (any_plugin_records) return PluginReport(plugin, job, clocks);
  std::vector<v1::Trace> traces(count);
  std::vector<view::TracedSession> traced;
  for (const NodeSessions& node : nodes) {
    for (const v1::Session& session : node.sessions) {
      RETURN_IF_ERROR(RequireTrace(session));
      v1::Trace& trace = traces[traced.size()];
      ASSIGN_OR_RETURN(trace, node.client->GetTrace(session.id()));
      traced.push_back({&session, &trace, node.host});
    }
  }
  return KernelOrderReport(traced, job, clocks);
}

// Several nodes' clocks, each related to the first's; none for one node, whose ranks share its
// clock.
view::HostClocks RelateClocksOf(const std::vector<NodeSessions>& nodes) {
  if (nodes.size() < 2) return {};
  std::vector<view::HostClockSamples> samples;
  for (const NodeSessions& node : nodes)
    samples.push_back(SampleHostClock(*node.client, node.host));
  return view::RelateHostClocks(samples);
}

// Every node's sessions of the job; a node that has none or does not answer is left out, unless
// every node is (or the only one is), which fails naming each.
absl::StatusOr<std::vector<NodeSessions>> ReadNodeSessions(
    const std::vector<client::Client*>& nodes, const JobArgs& args,
    std::vector<std::string>& left_out) {
  std::vector<NodeSessions> read;
  absl::StatusCode code = absl::StatusCode::kNotFound;
  for (client::Client* node : nodes) {
    absl::StatusOr<std::vector<v1::Session>> sessions = SessionsOf(*node, args);
    if (nodes.size() == 1 || sessions.ok()) {
      ASSIGN_OR_RETURN(std::vector<v1::Session> found, std::move(sessions));
      read.push_back({node, HostOf(node->endpoint()), std::move(found)});
      continue;
    }
    if (code == absl::StatusCode::kNotFound) code = sessions.status().code();
    left_out.push_back(absl::StrCat(node->endpoint().Name(), ": ", sessions.status().message()));
  }
  if (read.empty()) {
    return absl::Status(code, absl::StrCat("no host has a session of job ", args.job, ": ",
                                           absl::StrJoin(left_out, "; ")));
  }
  return read;
}

absl::StatusOr<JobReport> ReadJobReport(const std::vector<client::Client*>& nodes,
                                        const JobArgs& args) {
  JobReport report;
  ASSIGN_OR_RETURN(const std::vector<NodeSessions> read,
                   ReadNodeSessions(nodes, args, report.left_out));
  for (const NodeSessions& node : read) {
    for (const v1::Session& session : node.sessions) {
      report.recording = report.recording || session.state() == v1::Session::RUNNING;
    }
  }
  ASSIGN_OR_RETURN(const ReportParts parts, ReadAndRender(read, args.job, RelateClocksOf(read)));
  report.text = parts.Text();
  report.verdict = parts.verdict;
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

std::string RenderJobReport(std::span<const view::TracedSession> sessions, const std::string& job,
                            const view::HostClocks& clocks) {
  return KernelOrderReport(sessions, job, clocks).Text();
}

std::string RenderPluginJobReport(std::span<const view::PluginSession> sessions,
                                  const std::string& job, const view::HostClocks& clocks) {
  return PluginReport(sessions, job, clocks).Text();
}

absl::StatusOr<JobReport> RunJobCommand(const std::vector<client::Client*>& nodes,
                                        const JobArgs& args) {
  if (nodes.size() > 1 && args.job.empty()) {
    return absl::InvalidArgumentError(
        "on several hosts, name the job with --job JOB: a session id is one host's");
  }
  return ReadJobReport(nodes, args);
}

std::string RenderJobVerdict(const std::vector<client::Client*>& nodes, const std::string& job) {
  absl::StatusOr<JobReport> report = RunJobCommand(nodes, {.job = job});
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
        ASSIGN_OR_RETURN(const JobReport report, RunJobCommand(nodes, args));
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
