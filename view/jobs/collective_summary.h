// Per collective, what `protonctl top --collectives` will show: for each (op, communicator) the
// calls, bytes, time, algorithm, median bus bandwidth and the early ranks' wait. Pure; no I/O.
#ifndef PROTOND_VIEW_JOBS_COLLECTIVE_SUMMARY_H_
#define PROTOND_VIEW_JOBS_COLLECTIVE_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "view/jobs/collective.h"
#include "view/jobs/match.h"

namespace protond::view {

struct CollectiveSummary {
  CollectiveOp op = CollectiveOp::kAllReduce;
  uint64_t comm_id = 0;
  int nranks = 1;
  uint64_t calls = 0;             // matched calls, complete or not
  uint64_t judged_calls = 0;      // complete and comparable (match.h)
  uint64_t bytes = 0;             // over all calls, each counted once (not once per rank)
  int64_t rank_time_ns = 0;       // the ranks' own times (end - start), summed: waits included
  int64_t transfer_ns = 0;        // the judged calls' transfer times, summed: waits excluded
  std::string algorithm;          // the most frequent one (ties: the first by name); "" if none
  std::string protocol;           // likewise
  double median_bus_bw_gbps = 0;  // over judged calls with a transfer time; 0 if none
  int64_t wait_ns = 0;            // the early ranks' waits over the judged calls, summed
};

// One summary per (op, communicator), the most rank time first (ties: by comm_id, then op).
std::vector<CollectiveSummary> SummarizeCollectives(const MatchedJob& job);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_COLLECTIVE_SUMMARY_H_
