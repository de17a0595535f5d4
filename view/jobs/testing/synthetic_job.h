// Synthetic collective records for the tests of view/jobs/: a job whose ranks call one collective
// over and over, with delays, jitter and clock skew as a test asks. Test-only.
#ifndef PROTOND_VIEW_JOBS_TESTING_SYNTHETIC_JOB_H_
#define PROTOND_VIEW_JOBS_TESTING_SYNTHETIC_JOB_H_

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "view/jobs/collective.h"

namespace protond::view::testing {

inline constexpr int64_t kMs = 1'000'000;

struct SyntheticJob {
  std::string job = "job-7";
  uint64_t comm_id = 0x2a;
  int nranks = 2;
  int calls = 118;
  int first_pid = 1000;                // rank r is pid first_pid + r
  std::vector<std::string> host_of{};  // by rank; "node01" for ranks past its end
  int64_t step_ns = 50 * kMs;          // from one call to the next
  int64_t transfer_ns = kMs / 2;       // from the last start to the end
  int64_t jitter_ns = 0;               // each start gets uniform [0, jitter_ns) more
  std::function<int64_t(int rank, int call)> delay_ns{};  // an extra start delay; none if empty
  std::map<std::string, int64_t> clock_skew_ns{};         // added to a host's times
  std::string op = "all_reduce";
  uint64_t bytes = 64 << 20;
  uint32_t seed = 1;
};

inline std::string HostOf(const SyntheticJob& job, int rank) {
  return rank < static_cast<int>(job.host_of.size()) ? job.host_of[rank] : "node01";
}

// Every rank's record of every call, by call then rank.
inline std::vector<CollectiveRecordUntrusted> Generate(const SyntheticJob& job) {
  std::mt19937 random(job.seed);
  std::uniform_int_distribution<int64_t> jitter(0, std::max<int64_t>(job.jitter_ns - 1, 0));
  std::vector<CollectiveRecordUntrusted> out;
  for (int call = 0; call < job.calls; ++call) {
    std::vector<int64_t> start(job.nranks);
    int64_t last = 0;
    for (int rank = 0; rank < job.nranks; ++rank) {
      start[rank] = 1'000 * kMs + call * job.step_ns + (job.jitter_ns > 0 ? jitter(random) : 0) +
                    (job.delay_ns ? job.delay_ns(rank, call) : 0);
      last = std::max(last, start[rank]);
    }
    for (int rank = 0; rank < job.nranks; ++rank) {
      const std::string host = HostOf(job, rank);
      const auto skew = job.clock_skew_ns.find(host);
      const int64_t shift = skew == job.clock_skew_ns.end() ? 0 : skew->second;
      out.push_back({.job = job.job,
                     .host = host,
                     .rank = rank,
                     .pid = job.first_pid + rank,
                     .comm_id = job.comm_id,
                     .seq = static_cast<uint64_t>(call),
                     .op = job.op,
                     .bytes = job.bytes,
                     .datatype = "f32",
                     .algorithm = "RING",
                     .protocol = "LL",
                     .nranks = job.nranks,
                     .start_ns = start[rank] + shift,
                     .end_ns = last + job.transfer_ns + shift,
                     .scope_path = "train/step/backward"});
    }
  }
  return out;
}

}  // namespace protond::view::testing

#endif  // PROTOND_VIEW_JOBS_TESTING_SYNTHETIC_JOB_H_
