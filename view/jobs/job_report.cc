#include "view/jobs/job_report.h"

#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "view/jobs/collective_table.h"
#include "view/jobs/match.h"
#include "view/jobs/validate.h"
#include "view/jobs/verdict.h"
#include "view/jobs/verdict_text.h"

namespace protond::view {
namespace {

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
void AddMatchProblems(const MatchedJob& matched, std::vector<std::string>& problems) {
  for (const CommunicatorCalls& comm : matched.communicators) {
    uint64_t incomplete = 0;
    for (const MatchedCall& call : comm.calls) incomplete += call.complete ? 0 : 1;
    if (incomplete > 0) {
      problems.push_back(absl::StrCat(incomplete, " of ", comm.calls.size(),
                                      " calls lack a rank and are not judged"));
    }
    for (const MatchedCall& call : comm.calls) {
      if (!call.refused.empty()) {
        problems.push_back(absl::StrCat("calls are not compared: ", call.refused));
        break;
      }
    }
  }
}

// The clock offsets and the verdict (`verdict`), then the summary and the problems (`details`) on
// `records`, `problems` first. A lateness within the offsets' error names no rank.
JobReportParts JudgeRecords(std::string heading,
                            const std::vector<CollectiveRecordUntrusted>& records,
                            std::vector<std::string> problems, RecordSource source,
                            const HostClocks& clocks) {
  JobReportParts out{std::move(heading), RenderHostClocks(clocks), ""};
  if (records.empty()) {
    absl::StrAppend(&out.verdict, source == RecordSource::kPlugin
                                      ? "no NCCL collective calls: nothing to match\n"
                                      : "no NCCL collective kernels: nothing to match\n");
  } else {
    ValidatedCollectives valid = ValidateCollectives(records, "");
    const MatchedJob matched = MatchCollectives(valid.records, clocks.ToMatchOptions());
    const JobVerdict verdict = JudgeJob(matched, {.clock_error_ns = clocks.MaxErrorNs()});
    absl::StrAppend(&out.verdict, RenderVerdict(verdict.job), "\n");
    if (source == RecordSource::kPlugin) {
      absl::StrAppend(&out.verdict, RenderArrivalClock(matched), "\n");
    }
    absl::StrAppend(&out.details, "\n",
                    RenderCollectiveTable(matched, source == RecordSource::kPlugin));
    for (std::string& message : valid.stats.messages) problems.push_back(std::move(message));
    AddMatchProblems(matched, problems);
  }
  if (!problems.empty()) {
    absl::StrAppend(&out.details, "problems:\n");
    for (const std::string& problem : problems) absl::StrAppend(&out.details, "  ", problem, "\n");
  }
  return out;
}

}  // namespace

JobReportParts KernelOrderJobReport(std::span<const TracedSession> sessions, const std::string& job,
                                    const HostClocks& clocks) {
  const LaunchOrderRecords records = CollectivesFromKernelOrder(sessions, "");
  std::vector<uint64_t> ids;
  for (const TracedSession& session : sessions) ids.push_back(session.session->id());
  return JudgeRecords(Heading(ids, job, records.nranks, RecordSource::kKernelOrder),
                      records.records, records.problems, RecordSource::kKernelOrder, clocks);
}

JobReportParts PluginJobReport(std::span<const PluginSession> sessions, const std::string& job,
                               const HostClocks& clocks) {
  const std::vector<CollectiveRecordUntrusted> records = CollectivesFromPlugin(sessions, "");
  std::vector<uint64_t> ids;
  for (const PluginSession& session : sessions) ids.push_back(session.session->id());
  // The ranks are the processes with calls; a process in several communicators counts once.
  std::set<ProcessId> processes;
  for (const CollectiveRecordUntrusted& record : records) {
    processes.insert({record.host, record.pid});
  }
  return JudgeRecords(Heading(ids, job, static_cast<int>(processes.size()), RecordSource::kPlugin),
                      records, {}, RecordSource::kPlugin, clocks);
}

}  // namespace protond::view
