// The verdict in words, as `protonctl job J` and the job view print it:
//   rank 1 (pid 1284, node02) arrives last at 117 of 118 all_reduce calls, on average 10.2 ms
//   after the first; rank 0 waited 551 ms in all (76% of its GPU time)
// Pure; no I/O. Hosts are printed with their control characters made visible.
#ifndef PROTOND_VIEW_JOBS_VERDICT_TEXT_H_
#define PROTOND_VIEW_JOBS_VERDICT_TEXT_H_

#include <string>

#include "view/jobs/verdict.h"

namespace protond::view {

// One line, without a newline: the sentence above, or "no rank is late: <reason>".
std::string RenderVerdict(const Verdict& verdict);

// Which clock the judged calls' arrivals came from, one line without a newline: the GPUs' (each
// call's NCCL kernel start), the hosts' (when each rank called NCCL), or how many of each.
std::string RenderArrivalClock(const MatchedJob& matched);

// The job's line, then one per communicator ("communicator 0x2a (2 ranks): ..."), each ending in
// a newline.
std::string RenderJobVerdict(const JobVerdict& verdict);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_VERDICT_TEXT_H_
