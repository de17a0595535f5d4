// `protonctl job`'s report on a job's collectives, from the sessions' calls and traces already
// read: which rank the others wait for, then a per-collective summary and the problems
// (docs/jobs.md). Pure; protonctl and both pages' /api/job (page_server/job_report.h) read what
// it needs and print or send what it makes.
#ifndef PROTOND_VIEW_JOBS_JOB_REPORT_H_
#define PROTOND_VIEW_JOBS_JOB_REPORT_H_

#include <span>
#include <string>

#include "view/jobs/clock_offset.h"
#include "view/jobs/kernel_order.h"
#include "view/jobs/plugin_records.h"

namespace protond::view {

// A report in its three parts, printed one after the other: `tree --job` prints the verdict alone.
struct JobReportParts {
  std::string heading;
  std::string verdict;  // the clock offsets, the verdict and where the arrivals were timed
  std::string details;  // the per-collective table, then the problems

  std::string Text() const { return heading + verdict + details; }
};

// The report on `sessions` (trace sessions, their traces read): a heading, the clock offsets
// between their hosts (several hosts), the verdict, the per-collective table, then the problems.
// `job` names the job in the heading ("" for a session's). `clocks` puts the hosts' times on one
// clock; without an offset for a host, its calls with other hosts are not compared.
JobReportParts KernelOrderJobReport(std::span<const TracedSession> sessions, const std::string& job,
                                    const HostClocks& clocks = {});
// The same from the sessions' collective calls that NCCL's profiler plugin reported, matched by
// communicator and call number; the table adds each collective's bytes and bus bandwidth.
JobReportParts PluginJobReport(std::span<const PluginSession> sessions, const std::string& job,
                               const HostClocks& clocks = {});

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_JOB_REPORT_H_
