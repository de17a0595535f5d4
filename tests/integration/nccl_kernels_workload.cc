// A two-rank NCCL job's GPU activity without a GPU: started with no RANK, it starts itself twice,
// as RANK=0 and RANK=1 of the job in its environment, and waits for both. Each rank writes, into
// a lane of its own region, the kernel records libprotond_cupti would write for CALLS calls of
// ncclDevKernel_AllReduce_Sum_f32_RING_LL, 20 ms apart: rank 1 starts DELAY_MS later each time,
// and both end together, 1 ms after rank 1 started (as rank 0 waits for it inside the kernel).
// With `collectives`, each rank writes instead the records the shim's NCCL profiler plugin would
// write for the same calls (kCollective: AllReduce of 1M f32 on one communicator, numbered from 0,
// under the scope "train_step"), with the same times.
//
//   nccl_kernels_workload DELAY_MS CALLS [collectives]
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/record/record_format.h"
#include "common/record/test_records.h"
#include "protond/shim.h"
#include "tests/integration/own_region.h"
#include "tests/integration/two_ranks.h"

namespace {

using protond::testing::kMs;
constexpr uint32_t kKernelNameId = 1000;  // apart from the shim's, which count up from 1
constexpr uint32_t kStepContextId = 1000;
constexpr uint64_t kCommHash = 0x5eed0fc0111ec7e5;
constexpr char kKernelName[] =
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";

// Where one call starts and ends on `rank`.
struct CallTimes {
  uint64_t start_ns;
  uint64_t end_ns;
};
CallTimes TimesOf(int rank, int call, uint64_t base_ns, uint64_t delay_ns) {
  const uint64_t call_ns = base_ns + static_cast<uint64_t>(call) * 20 * kMs;
  return {call_ns + static_cast<uint64_t>(rank) * delay_ns, call_ns + delay_ns + kMs};
}

bool WriteKernel(protond::ring::LaneWriter& lane, int rank, int call, CallTimes times) {
  auto kernel = protond::record::MakeGpuActivity(protond::record::Kind::kKernel, 0,
                                                 protond::record::kRootContextId);
  kernel.start_ns = times.start_ns;
  kernel.end_ns = times.end_ns;
  kernel.name_id = kKernelNameId;
  kernel.correlation_id = static_cast<uint32_t>(call + 1);
  kernel.device_id = static_cast<uint32_t>(rank);
  kernel.stream_id = 7;
  return protond::testing::AppendWaiting(lane, &kernel, sizeof(kernel));
}

bool WriteCollective(protond::ring::LaneWriter& lane, int rank, int call, CallTimes times) {
  const auto collective =
      protond::record::testing::Collective(kStepContextId, 0,
                                           {.start = times.start_ns,
                                            .end = times.end_ns,
                                            .comm_hash = kCommHash,
                                            .seq = static_cast<uint64_t>(call),
                                            .count = 1 << 20,
                                            .rank = static_cast<uint32_t>(rank)});
  return protond::testing::AppendWaiting(lane, &collective, sizeof(collective));
}

// The definition that each call's record names: the kernel's name, or the plugin's scope.
std::vector<uint8_t> Definition(bool collectives) {
  constexpr std::string_view kStep = "train_step";
  if (collectives) {
    std::vector<uint8_t> context(protond::record::NamedRecordBytes(kStep.size()));
    protond::record::EncodeContextDef(kStepContextId, protond::record::kRootContextId, kStep,
                                      context.data());
    return context;
  }
  std::vector<uint8_t> name(protond::record::NamedRecordBytes(sizeof(kKernelName) - 1));
  protond::record::EncodeNameDef(kKernelNameId, protond::record::NameClass::kKernel, kKernelName,
                                 name.data());
  return name;
}

int RunRank(int rank, uint64_t base_ns, uint64_t delay_ns, int calls, bool collectives) {
  void* region = protond::testing::MapOwnRegion();
  if (region == nullptr) {
    std::fprintf(stderr, "nccl_kernels_workload: no protond region in rank %d\n", rank);
    return 1;
  }
  const uint32_t tid = static_cast<uint32_t>(gettid());
  protond::ring::LaneWriter lane = protond::testing::ClaimLastLane(region, tid);
  const auto thread_begin = protond::record::MakeThreadBegin(tid);
  const auto session_begin = protond::record::MakeSessionBegin(protond_current_session());
  const std::vector<uint8_t> definition = Definition(collectives);
  bool written = protond::testing::AppendWaiting(lane, &thread_begin, sizeof(thread_begin)) &&
                 protond::testing::AppendWaiting(lane, &session_begin, sizeof(session_begin)) &&
                 protond::testing::AppendWaiting(lane, definition.data(), definition.size());
  for (int call = 0; written && call < calls; ++call) {
    const CallTimes times = TimesOf(rank, call, base_ns, delay_ns);
    written = collectives ? WriteCollective(lane, rank, call, times)
                          : WriteKernel(lane, rank, call, times);
  }
  std::printf("nccl_kernels_workload: rank %d %s\n", rank, written ? "done" : "lane full");
  return written ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool collectives = argc == 4 && std::string(argv[3]) == "collectives";
  if (argc != 3 && !collectives) {
    std::fprintf(stderr, "usage: nccl_kernels_workload DELAY_MS CALLS [collectives]\n");
    return 2;
  }
  int rank = 0;
  uint64_t base_ns = 0;
  if (!protond::testing::RankOfJob(&rank, &base_ns)) return protond::testing::RunBothRanks(argv);
  return RunRank(rank, base_ns, std::strtoull(argv[1], nullptr, 10) * kMs, std::atoi(argv[2]),
                 collectives);
}
