#include "page_server/job_report.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/clock/tsc_clock.h"
#include "common/status/status_macros.h"
#include "view/history/window_selection.h"
#include "view/jobs/clock_offset.h"
#include "view/jobs/job_report.h"

namespace protond::page_server {
namespace {

// Clock readings per node: the shortest of 8 round trips is the estimate's, so that one slowed by
// a busy daemon or network does not set the error.
constexpr int kClockSamples = 8;

// kClockSamples readings of the clock of `node`'s protond, each timed on this machine's
// CLOCK_MONOTONIC, or why there are none (it does not answer, or it is older than GetClock).
view::HostClockSamples SampleHostClock(const JobNode& node) {
  std::vector<view::ClockSample> samples;
  for (int i = 0; i < kClockSamples; ++i) {
    view::ClockSample sample;
    sample.sent_ns = static_cast<int64_t>(clock::MonotonicNs());
    const absl::StatusOr<int64_t> remote_ns = node.source->GetClock();
    sample.received_ns = static_cast<int64_t>(clock::MonotonicNs());
    if (absl::IsUnimplemented(remote_ns.status())) {
      return {node.host,
              absl::UnimplementedError(
                  "its protond does not serve GetClock: a version older than this protonctl")};
    }
    if (!remote_ns.ok()) {
      return {node.host,
              absl::Status(remote_ns.status().code(),
                           absl::StrCat("cannot read its clock: ", remote_ns.status().message()))};
    }
    sample.remote_ns_untrusted = *remote_ns;
    samples.push_back(sample);
  }
  return {node.host, std::move(samples)};
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

absl::StatusOr<std::vector<v1::Session>> SessionsOfJob(ProfileSource& source,
                                                       const std::string& job) {
  ASSIGN_OR_RETURN(const v1::ListSessionsResponse listed, source.ListSessions());
  std::vector<v1::Session> sessions;
  for (const v1::Session& session : listed.sessions()) {
    if (view::IsSessionOfJob(session, job)) sessions.push_back(session);
  }
  if (sessions.empty()) {
    return absl::NotFoundError(absl::StrCat("no session of job ", job, " here"));
  }
  return sessions;
}

// One node and the sessions read from it.
struct NodeSessions {
  const JobNode* node = nullptr;
  std::vector<v1::Session> sessions;
};

// The plugin's records where any session has them; else NCCL's kernels from the traces.
absl::StatusOr<view::JobReportParts> ReadAndRender(const std::vector<NodeSessions>& nodes,
                                                   const std::string& job,
                                                   const view::HostClocks& clocks) {
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
      ASSIGN_OR_RETURN(calls, node.node->source->GetCollectives(session.id()));
      any_plugin_records = any_plugin_records || calls.events_size() > 0;
      plugin.push_back({&session, &calls, node.node->host});
    }
  }
  if (any_plugin_records) return view::PluginJobReport(plugin, job, clocks);
  std::vector<v1::Trace> traces(count);
  std::vector<view::TracedSession> traced;
  for (const NodeSessions& node : nodes) {
    for (const v1::Session& session : node.sessions) {
      RETURN_IF_ERROR(RequireTrace(session));
      v1::Trace& trace = traces[traced.size()];
      ASSIGN_OR_RETURN(trace, node.node->source->GetTrace(session.id()));
      traced.push_back({&session, &trace, node.node->host});
    }
  }
  return view::KernelOrderJobReport(traced, job, clocks);
}

// Several nodes' clocks, each related to the first's; none for one node, whose ranks share its
// clock.
view::HostClocks RelateClocksOf(const std::vector<NodeSessions>& nodes) {
  if (nodes.size() < 2) return {};
  std::vector<view::HostClockSamples> samples;
  for (const NodeSessions& node : nodes) samples.push_back(SampleHostClock(*node.node));
  return view::RelateHostClocks(samples);
}

// Every node's sessions of the job; a node that has none or does not answer is left out, unless
// every node is (or the only one is), which fails naming each.
absl::StatusOr<std::vector<NodeSessions>> ReadNodeSessions(std::span<const JobNode> nodes,
                                                           const std::string& job,
                                                           std::vector<std::string>& left_out) {
  std::vector<NodeSessions> read;
  absl::StatusCode code = absl::StatusCode::kNotFound;
  for (const JobNode& node : nodes) {
    absl::StatusOr<std::vector<v1::Session>> sessions = SessionsOfJob(*node.source, job);
    if (nodes.size() == 1 || sessions.ok()) {
      ASSIGN_OR_RETURN(std::vector<v1::Session> found, std::move(sessions));
      read.push_back({&node, std::move(found)});
      continue;
    }
    if (code == absl::StatusCode::kNotFound) code = sessions.status().code();
    left_out.push_back(absl::StrCat(node.name, ": ", sessions.status().message()));
  }
  if (read.empty()) {
    return absl::Status(code, absl::StrCat("no host has a session of job ", job, ": ",
                                           absl::StrJoin(left_out, "; ")));
  }
  return read;
}

absl::StatusOr<JobReport> ReportOn(const std::vector<NodeSessions>& read, const std::string& job,
                                   JobReport report) {
  for (const NodeSessions& node : read) {
    for (const v1::Session& session : node.sessions) {
      report.recording = report.recording || session.state() == v1::Session::RUNNING;
    }
  }
  ASSIGN_OR_RETURN(const view::JobReportParts parts,
                   ReadAndRender(read, job, RelateClocksOf(read)));
  report.text = parts.Text();
  report.verdict = parts.verdict;
  return report;
}

}  // namespace

absl::StatusOr<JobReport> ReadJobReport(std::span<const JobNode> nodes, const std::string& job) {
  JobReport report;
  ASSIGN_OR_RETURN(const std::vector<NodeSessions> read,
                   ReadNodeSessions(nodes, job, report.left_out));
  return ReportOn(read, job, std::move(report));
}

absl::StatusOr<JobReport> ReadSessionReport(const JobNode& node, v1::Session session) {
  return ReportOn({{&node, {std::move(session)}}}, "", {});
}

}  // namespace protond::page_server
