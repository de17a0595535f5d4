// A hostile-but-alive workload for the corrupt-lane test: it records ordinary scopes through the
// shim, and also claims the region's last lane itself and fills it with garbage, as a buggy or
// malicious process could. The daemon must mark that lane corrupt and keep everything else.
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "protond/shim.h"
#include "tests/integration/own_region.h"

int main() {
  void* region = protond::testing::MapOwnRegion();
  if (region == nullptr) {
    std::fprintf(stderr, "garbage_lane_workload: no protond region in this process\n");
  } else {
    uint8_t garbage[32];
    std::memset(garbage, 0xab, sizeof(garbage));
    protond::testing::ClaimLastLane(region, gettid()).TryWrite(garbage, sizeof(garbage));
  }
  for (int i = 0; i < 10; ++i) {
    protond_scope_enter("good");
    protond_metric_int64("items", 1);
    protond_scope_exit("good");
  }
  std::printf("garbage_lane_workload: done\n");
  return 0;
}
