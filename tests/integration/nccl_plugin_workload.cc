// A two-rank NCCL job as NCCL's profiler plugin sees it, without a GPU or NCCL: started with no
// RANK, it starts itself twice, as RANK=0 and RANK=1 of the job (two_ranks.h). Each rank does what
// NCCL does with NCCL_PROFILER_PLUGIN: loads the library it names (the shim's front, which set it),
// takes its ncclProfiler_v5, creates one communicator of two ranks, and makes CALLS AllReduce calls
// of 2^20 float32 elements (RING, LL) inside a scope "step", 20 ms apart from 500 ms after the
// launcher started them: rank 1 starts each DELAY_MS later, and both end together, 1 ms after
// rank 1 started. Each rank sleeps to these times, so a busy machine may move a call by more.
// With START_UNIX_S it runs one rank alone (RANK from the environment), its base time that wall
// clock second: the two-host test runs rank 0 on one host and rank 1 on the other.
//
//   nccl_plugin_workload DELAY_MS CALLS [START_UNIX_S]
#include <dlfcn.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "protond/shim.h"
#include "shim/nccl/nccl_profiler_abi.h"
#include "tests/integration/two_ranks.h"

namespace {

using protond::testing::kMs;
constexpr uint64_t kCommHash = 0x7e57c0111ec71fe5;
// The first call comes this long after the launcher's base time, so that a rank slow to start
// (a sanitizer build, a busy machine) is not late to it.
constexpr uint64_t kStartupMs = 500;

void SleepUntil(uint64_t monotonic_ns) {
  const timespec until{static_cast<time_t>(monotonic_ns / 1'000'000'000),
                       static_cast<long>(monotonic_ns % 1'000'000'000)};
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
}

const protond_nccl_profiler_v5* LoadPlugin() {
  const char* path = std::getenv("NCCL_PROFILER_PLUGIN");
  void* library = path != nullptr ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  return library != nullptr
             ? static_cast<const protond_nccl_profiler_v5*>(dlsym(library, "ncclProfiler_v5"))
             : nullptr;
}

int RunRank(int rank, uint64_t base_ns, uint64_t delay_ns, int calls) {
  const protond_nccl_profiler_v5* plugin = LoadPlugin();
  void* communicator = nullptr;
  int mask = 0;
  if (plugin == nullptr ||
      plugin->init(&communicator, kCommHash, &mask, "job", 1, 2, rank, nullptr) != 0) {
    std::fprintf(stderr, "nccl_plugin_workload: rank %d found no profiler plugin\n", rank);
    return 1;
  }
  protond_scope_enter("step");
  for (int call = 0; call < calls; ++call) {
    const uint64_t call_ns = base_ns + kStartupMs * kMs + static_cast<uint64_t>(call) * 20 * kMs;
    SleepUntil(call_ns + static_cast<uint64_t>(rank) * delay_ns);
    protond_nccl_event_v5 descr{};
    descr.type = PROTOND_NCCL_PROFILE_COLL;
    descr.rank = rank;
    descr.u.coll.seq_number = static_cast<uint64_t>(call);
    descr.u.coll.func = "AllReduce";
    descr.u.coll.count = 1 << 20;
    descr.u.coll.datatype = "ncclFloat32";
    descr.u.coll.algorithm = "RING";
    descr.u.coll.protocol = "LL";
    void* event = nullptr;
    plugin->start_event(communicator, &event, &descr);
    SleepUntil(call_ns + delay_ns + kMs);
    plugin->stop_event(event);
  }
  protond_scope_exit("step");
  plugin->finalize(communicator);
  std::printf("nccl_plugin_workload: rank %d done (activation mask %d)\n", rank, mask);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int rank = 0;
  uint64_t base_ns = 0;
  if (argc == 4) {
    if (!protond::testing::RankAtWallClock(argv[3], &rank, &base_ns)) {
      std::fprintf(stderr, "nccl_plugin_workload: START_UNIX_S needs a RANK and a number\n");
      return 2;
    }
  } else if (argc != 3) {
    std::fprintf(stderr, "usage: nccl_plugin_workload DELAY_MS CALLS [START_UNIX_S]\n");
    return 2;
  } else if (!protond::testing::RankOfJob(&rank, &base_ns)) {
    return protond::testing::RunBothRanks(argv);
  }
  return RunRank(rank, base_ns, std::strtoull(argv[1], nullptr, 10) * kMs, std::atoi(argv[2]));
}
