// The verdict on a job's collectives: which rank, if any, the others keep waiting for. Per
// communicator, and for the job over all of them. Pure; no I/O.
//
// The rule (docs/jobs.md): over the judged calls (complete, comparable; match.h) the candidate is
// the rank that starts last most often. It is named late only when both hold:
//  - it is last at a share of its judged calls of at least min_last_share, and more often than
//    chance would make it by chance_sigmas standard deviations (a binomial test: with n ranks a
//    rank is last at 1/n of the calls by chance);
//  - its median lateness (its start minus the first start) is at least min_lateness_ns, at
//    least min_lateness_of_transfer times the median transfer time of the calls, and at least
//    the clock offsets' error (calls over several hosts).
// Otherwise no rank is late, and `reason` says which test failed, with its numbers.
#ifndef PROTOND_VIEW_JOBS_VERDICT_H_
#define PROTOND_VIEW_JOBS_VERDICT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "view/jobs/collective.h"
#include "view/jobs/match.h"

namespace protond::view {

struct VerdictOptions {
  double min_last_share = 0.6;
  double chance_sigmas = 3.0;
  int64_t min_lateness_ns = 1'000'000;
  double min_lateness_of_transfer = 0.05;
  // The largest error of the clock offsets that put the calls' hosts on one clock (--hosts;
  // clock_offset.h): a median lateness below it may be the clocks' own, so it is needed too.
  int64_t clock_error_ns = 0;
  // Optional: each process's GPU time over the same span, for the others' wait as a share of it.
  std::map<ProcessId, int64_t> gpu_time_ns{};
};

struct Verdict {
  bool late = false;   // the candidate is named late
  std::string reason;  // when not late: why, with the numbers
  uint64_t judged_calls = 0;

  // The rank last most often (ties: the lower rank), filled when any judged call had one last
  // rank. In a job verdict, `rank` is the process's rank in its largest communicator.
  int rank = -1;
  ProcessId process;
  uint64_t last_calls = 0;       // judged calls where it started last
  uint64_t candidate_calls = 0;  // judged calls it took part in
  std::string op_name;           // "all_reduce" when those calls were all one op, else "collective"
  double mean_lateness_ns = 0;   // over the last_calls
  // Over all candidate_calls: what the rule of this file tests.
  int64_t median_lateness_ns = 0;
  int64_t median_transfer_ns = 0;  // over candidate_calls

  // The others in those calls: their ranks, their waits summed, and that sum's share of their
  // GPU time when VerdictOptions gives it for every one of their processes.
  std::vector<int> other_ranks;
  int64_t others_wait_ns = 0;
  std::optional<double> others_wait_share;
};

struct CommunicatorVerdict {
  uint64_t comm_id = 0;
  int nranks = 1;
  Verdict verdict;
};

struct JobVerdict {
  Verdict job;
  std::vector<CommunicatorVerdict> communicators;  // by comm_id
};

JobVerdict JudgeJob(const MatchedJob& job, const VerdictOptions& options);

// The fewest judged calls at which a rank of a communicator of `nranks` that came last at every
// one of them would be named (the share test of this file's rule): below it no rank can be, so
// a verdict of "no rank is late" says only that there were too few calls. Two ranks need the
// most (chance makes each last at half of the calls): 9 with the default options.
uint64_t MinCallsToNameARank(int nranks, const VerdictOptions& options);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_VERDICT_H_
