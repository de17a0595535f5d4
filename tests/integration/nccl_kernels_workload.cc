// A two-rank NCCL job's GPU activity without a GPU: started with no RANK, it starts itself twice,
// as RANK=0 and RANK=1 of the job in its environment, and waits for both. Each rank writes, into
// a lane of its own region, the kernel records libprotond_cupti would write for CALLS calls of
// ncclDevKernel_AllReduce_Sum_f32_RING_LL, 20 ms apart: rank 1 starts DELAY_MS later each time,
// and both end together, 1 ms after rank 1 started (as rank 0 waits for it inside the kernel).
//
//   nccl_kernels_workload DELAY_MS CALLS
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/record/record_format.h"
#include "protond/shim.h"
#include "tests/integration/own_region.h"
#include "tests/integration/two_ranks.h"

namespace {

using protond::testing::kMs;
constexpr uint32_t kKernelNameId = 1000;  // apart from the shim's, which count up from 1
constexpr char kKernelName[] =
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";

int RunRank(int rank, uint64_t base_ns, uint64_t delay_ns, int calls) {
  void* region = protond::testing::MapOwnRegion();
  if (region == nullptr) {
    std::fprintf(stderr, "nccl_kernels_workload: no protond region in rank %d\n", rank);
    return 1;
  }
  const uint32_t tid = static_cast<uint32_t>(gettid());
  protond::ring::LaneWriter lane = protond::testing::ClaimLastLane(region, tid);
  const auto thread_begin = protond::record::MakeThreadBegin(tid);
  const auto session_begin = protond::record::MakeSessionBegin(protond_current_session());
  std::vector<uint8_t> name(protond::record::NamedRecordBytes(sizeof(kKernelName) - 1));
  protond::record::EncodeNameDef(kKernelNameId, protond::record::NameClass::kKernel, kKernelName,
                                 name.data());
  bool written = protond::testing::AppendWaiting(lane, &thread_begin, sizeof(thread_begin)) &&
                 protond::testing::AppendWaiting(lane, &session_begin, sizeof(session_begin)) &&
                 protond::testing::AppendWaiting(lane, name.data(), name.size());
  for (int call = 0; written && call < calls; ++call) {
    auto kernel = protond::record::MakeGpuActivity(protond::record::Kind::kKernel, 0,
                                                   protond::record::kRootContextId);
    const uint64_t call_ns = base_ns + static_cast<uint64_t>(call) * 20 * kMs;
    kernel.start_ns = call_ns + static_cast<uint64_t>(rank) * delay_ns;
    kernel.end_ns = call_ns + delay_ns + kMs;
    kernel.name_id = kKernelNameId;
    kernel.correlation_id = static_cast<uint32_t>(call + 1);
    kernel.device_id = static_cast<uint32_t>(rank);
    kernel.stream_id = 7;
    written = protond::testing::AppendWaiting(lane, &kernel, sizeof(kernel));
  }
  std::printf("nccl_kernels_workload: rank %d %s\n", rank, written ? "done" : "lane full");
  return written ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: nccl_kernels_workload DELAY_MS CALLS\n");
    return 2;
  }
  int rank = 0;
  uint64_t base_ns = 0;
  if (!protond::testing::RankOfJob(&rank, &base_ns)) return protond::testing::RunBothRanks(argv);
  return RunRank(rank, base_ns, std::strtoull(argv[1], nullptr, 10) * kMs, std::atoi(argv[2]));
}
