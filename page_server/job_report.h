// `protonctl job`'s report read from one or several nodes' protond (view/jobs/job_report.h makes
// it): the job's sessions, their collective calls or traces, and the nodes' clocks. Behind
// `protonctl job`, `tree --job`'s verdict and both pages' /api/job.
#ifndef PROTOND_PAGE_SERVER_JOB_REPORT_H_
#define PROTOND_PAGE_SERVER_JOB_REPORT_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "page_server/job_node.h"
#include "protond.pb.h"

namespace protond::page_server {

struct JobReport {
  std::string text;
  std::string verdict;                // the lines of `text` that `tree --job` prints after its tree
  bool recording = false;             // a session of it still runs
  std::vector<std::string> left_out;  // "node02:7878: why", one per node that gave no session
};

// The report on every session of `job` on `nodes`, from the plugin's calls when any session has
// them, else from the sessions' traces; without either (a tree session without the plugin),
// FAILED_PRECONDITION saying what to do. With several nodes, their clocks are related to the
// first's that has a session, and a node without a session of the job is left out (named) unless
// every one is; a single node's failure is returned as it is.
absl::StatusOr<JobReport> ReadJobReport(std::span<const JobNode> nodes, const std::string& job);

// The same on one session, already read from `node`.
absl::StatusOr<JobReport> ReadSessionReport(const JobNode& node, v1::Session session);

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_JOB_REPORT_H_
