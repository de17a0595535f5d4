// A hostile-but-alive workload for the corrupt-lane test: it records ordinary scopes through the
// shim, and also claims the region's last lane itself and fills it with garbage, as a buggy or
// malicious process could. The daemon must mark that lane corrupt and keep everything else.
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "protond/shim.h"
#include "shim/ring/ring_layout.h"

namespace {

// The shim's region, found among this process's descriptors by its memfd name.
void* MapOwnRegion() {
  DIR* fds = opendir("/proc/self/fd");
  for (dirent* entry; fds != nullptr && (entry = readdir(fds)) != nullptr;) {
    char target[256] = {};
    const std::string link = std::string("/proc/self/fd/") + entry->d_name;
    if (readlink(link.c_str(), target, sizeof(target) - 1) <= 0) continue;
    if (std::strstr(target, "memfd:protond-region") == nullptr) continue;
    const int fd = std::atoi(entry->d_name);
    struct stat st;
    fstat(fd, &st);
    closedir(fds);
    return mmap(nullptr, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  if (fds != nullptr) closedir(fds);
  return nullptr;
}

void WriteGarbageIntoLastLane() {
  void* region = MapOwnRegion();
  if (region == nullptr || region == MAP_FAILED) {
    std::fprintf(stderr, "garbage_lane_workload: no protond region in this process\n");
    return;
  }
  const auto* header = static_cast<const protond::ring::RegionHeader*>(region);
  const uint32_t lane = header->lane_count - 1;
  protond::ring::LaneHeader* lane_header = protond::ring::LaneHeaderAt(region, lane);
  lane_header->claim.store(protond::ring::kLaneClaimed);
  std::memset(protond::ring::LaneDataAt(region, header->lane_count, header->lane_data_bytes, lane),
              0xab, 32);
  lane_header->write_pos.store(32);
}

}  // namespace

int main() {
  WriteGarbageIntoLastLane();
  for (int i = 0; i < 10; ++i) {
    protond_scope_enter("good");
    protond_metric_int64("items", 1);
    protond_scope_exit("good");
  }
  std::printf("garbage_lane_workload: done\n");
  return 0;
}
