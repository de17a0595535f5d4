#include "tests/integration/own_region.h"

#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace protond::testing {

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
    void* region = mmap(nullptr, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return region != MAP_FAILED ? region : nullptr;
  }
  if (fds != nullptr) closedir(fds);
  return nullptr;
}

ring::LaneWriter ClaimLastLane(void* region, uint32_t tid) {
  const auto* header = static_cast<const ring::RegionHeader*>(region);
  const uint32_t lane = header->lane_count - 1;
  ring::LaneHeader* lane_header = ring::LaneHeaderAt(region, lane);
  lane_header->claim.store(ring::kLaneClaimed);
  lane_header->owner_tid.store(tid);
  return ring::LaneWriter(
      lane_header, ring::LaneDataAt(region, header->lane_count, header->lane_data_bytes, lane),
      header->lane_data_bytes);
}

bool AppendWaiting(ring::LaneWriter& lane, const void* record, size_t bytes) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!lane.TryAppend(record, bytes)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace protond::testing
