// A GPU tracer's output without a GPU: writes the kDeviceInfo records libprotond_cupti writes
// when tracing starts (an H100 and an A100, with the values Proton reports) into a lane it claims
// itself, then records one scope through the shim. The daemon must list both devices under the
// session, and count only the scope's two records.
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "common/record/record_format.h"
#include "common/record/test_records.h"
#include "protond/shim.h"
#include "tests/integration/own_region.h"

namespace {

using protond::record::DeviceInfoRecord;

bool WriteDevice(protond::ring::LaneWriter& lane, uint32_t device_id,
                 const DeviceInfoRecord& device, std::string_view name) {
  std::vector<uint8_t> bytes(protond::record::DeviceInfoRecordBytes(name.size()));
  protond::record::EncodeDeviceInfo(device_id, device, name, bytes.data());
  return lane.TryWrite(bytes.data(), bytes.size());
}

}  // namespace

int main() {
  void* region = protond::testing::MapOwnRegion();
  if (region == nullptr) {
    std::fprintf(stderr, "device_info_workload: no protond region in this process\n");
    return 1;
  }
  const uint32_t tid = static_cast<uint32_t>(gettid());
  protond::ring::LaneWriter lane = protond::testing::ClaimLastLane(region, tid);
  const auto thread_begin = protond::record::MakeThreadBegin(tid);
  const auto session_begin = protond::record::MakeSessionBegin(protond_current_session());
  const bool written =
      lane.TryWrite(&thread_begin, sizeof(thread_begin)) &&
      lane.TryWrite(&session_begin, sizeof(session_begin)) &&
      WriteDevice(lane, 0, protond::record::testing::H100(), protond::record::testing::kH100Name) &&
      WriteDevice(lane, 1, protond::record::testing::A100(), protond::record::testing::kA100Name);
  protond_scope_enter("step");
  protond_scope_exit("step");
  std::printf("device_info_workload: %s\n", written ? "done" : "lane full");
  return written ? 0 : 1;
}
