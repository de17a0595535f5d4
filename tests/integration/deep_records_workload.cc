// What a shim without the depth limit wrote for a program that nests scopes 100,000 deep (or what
// a hostile writer could): into a lane it claims itself, a chain of contexts, each defined and
// entered, then each exited, innermost first; then one ordinary scope through the shim. It waits
// for the daemon to drain the lane as it goes, as the chain is several lanes long.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/record/record_format.h"
#include "protond/shim.h"
#include "tests/integration/own_region.h"

namespace {

bool Append(protond::ring::LaneWriter& lane, const void* record, size_t bytes) {
  return protond::testing::AppendWaiting(lane, record, bytes);
}

template <typename Record>
bool Append(protond::ring::LaneWriter& lane, const Record& record) {
  return Append(lane, &record, sizeof(record));
}

bool AppendContext(protond::ring::LaneWriter& lane, uint32_t id, uint32_t parent) {
  std::vector<uint8_t> bytes(protond::record::NamedRecordBytes(1));
  protond::record::EncodeContextDef(id, parent, "s", bytes.data());
  return Append(lane, bytes.data(), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  using protond::record::Kind;
  using protond::record::MakeTimed;
  const uint32_t levels = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 100000;
  void* region = protond::testing::MapOwnRegion();
  if (region == nullptr) {
    std::fprintf(stderr, "deep_records_workload: no protond region in this process\n");
    return 1;
  }
  const uint32_t tid = static_cast<uint32_t>(gettid());
  protond::ring::LaneWriter lane = protond::testing::ClaimLastLane(region, tid);
  bool written = Append(lane, protond::record::MakeThreadBegin(tid)) &&
                 Append(lane, protond::record::MakeSessionBegin(protond_current_session()));
  // Context ids apart from the shim's, which count up from 1 (the one scope it records takes 1).
  constexpr uint32_t kFirstId = 1000;
  for (uint32_t level = 1; written && level <= levels; ++level) {
    const uint32_t id = kFirstId + level;
    written = AppendContext(lane, id, level == 1 ? 0 : id - 1) &&
              Append(lane, MakeTimed(Kind::kScopeEnter, id, level));
  }
  for (uint32_t level = levels; written && level >= 1; --level) {
    written = Append(lane, MakeTimed(Kind::kScopeExit, kFirstId + level, 2 * levels - level));
  }
  protond_scope_enter("after");
  protond_scope_exit("after");
  std::printf("deep_records_workload: %s\n", written ? "done" : "the lane stayed full");
  return written ? 0 : 1;
}
