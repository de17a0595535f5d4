// The launcher of the two-rank job workloads (nccl_kernels_workload, nccl_plugin_workload): a
// workload started with no RANK starts itself twice, as RANK=0 and RANK=1 of the job, with one
// base time (PROTOND_TEST_BASE_NS, CLOCK_MONOTONIC ns) so that their calls line up. Or, for ranks
// on two hosts, one rank alone with a base time on the wall clock.
#ifndef PROTOND_TESTS_INTEGRATION_TWO_RANKS_H_
#define PROTOND_TESTS_INTEGRATION_TWO_RANKS_H_

#include <cstdint>

namespace protond::testing {

inline constexpr uint64_t kMs = 1'000'000;

uint64_t MonotonicNs();

// Runs /proc/self/exe with `argv` twice, as RANK=0 and RANK=1, and waits for both: 0 when both
// exited 0, else 1.
int RunBothRanks(char** argv);

// When this process is one of RunBothRanks' ranks: its rank and the shared base time; false in the
// launcher.
bool RankOfJob(int* rank, uint64_t* base_ns);

// One rank alone, as each host of the two-host test runs one: its RANK (from the environment),
// and the base time `start_unix_s`, a wall clock second both hosts agree on whatever their
// CLOCK_MONOTONIC (a time namespace may shift it), as this process's CLOCK_MONOTONIC. false
// without a RANK or with a START that is not a number.
bool RankAtWallClock(const char* start_unix_s, int* rank, uint64_t* base_ns);

}  // namespace protond::testing

#endif  // PROTOND_TESTS_INTEGRATION_TWO_RANKS_H_
