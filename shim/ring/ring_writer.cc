#include "shim/ring/ring_writer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/record/record_format.h"

namespace protond::ring {

absl::StatusOr<WritableRegion> WritableRegion::Create(const RegionGeometry& geometry) {
  if (absl::Status s = ValidateGeometry(geometry); !s.ok()) return s;
  const uint64_t bytes = RegionBytes(geometry.lane_count, geometry.lane_data_bytes);
  const int fd = memfd_create("protond-region", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return absl::ErrnoToStatus(errno, "memfd_create for the protond region");
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0 ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    const int error = errno;
    close(fd);
    return absl::ErrnoToStatus(error, absl::StrCat("sizing the protond region to ", bytes));
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    const int error = errno;
    close(fd);
    return absl::ErrnoToStatus(error, "mapping the protond region");
  }
  auto* header = new (base) RegionHeader{};
  header->magic = kRegionMagic;
  header->layout_version = kRegionLayoutVersion;
  header->record_format_version = record::kRecordFormatVersion;
  header->lane_count = geometry.lane_count;
  header->lane_data_bytes = geometry.lane_data_bytes;
  header->region_bytes = bytes;
  header->exit_state.store(kExitNotYet, std::memory_order_relaxed);
  for (uint32_t lane = 0; lane < geometry.lane_count; ++lane)
    new (LaneHeaderAt(base, lane)) LaneHeader{};
  return WritableRegion(fd, base, bytes, geometry);
}

WritableRegion::WritableRegion(WritableRegion&& other) noexcept { *this = std::move(other); }

WritableRegion& WritableRegion::operator=(WritableRegion&& other) noexcept {
  std::swap(fd_, other.fd_);
  std::swap(base_, other.base_);
  std::swap(bytes_, other.bytes_);
  std::swap(geometry_, other.geometry_);
  return *this;
}

WritableRegion::~WritableRegion() {
  if (base_ != nullptr) munmap(base_, bytes_);
  if (fd_ >= 0) close(fd_);
}

void WritableRegion::MarkNormalExit() {
  // Release: whatever the program's threads wrote before exit is written before the mark.
  static_cast<RegionHeader*>(base_)->exit_state.store(kExitNormal, std::memory_order_release);
}

bool WritableRegion::HasRecords() const {
  const auto* header = static_cast<const RegionHeader*>(base_);
  if (header->no_lane_dropped_records.load(std::memory_order_relaxed) != 0) return true;
  for (uint32_t lane = 0; lane < geometry_.lane_count; ++lane) {
    const LaneHeader* lane_header = LaneHeaderAt(base_, lane);
    if (lane_header->write_pos.load(std::memory_order_relaxed) != 0 ||
        lane_header->dropped_records.load(std::memory_order_relaxed) != 0) {
      return true;
    }
  }
  return false;
}

LaneWriter WritableRegion::ClaimLane(uint32_t tid) {
  for (uint32_t lane = 0; lane < geometry_.lane_count; ++lane) {
    LaneHeader* header = LaneHeaderAt(base_, lane);
    uint32_t expected = kLaneFree;
    if (header->claim.load(std::memory_order_relaxed) == kLaneFree &&
        header->claim.compare_exchange_strong(expected, kLaneClaimed, std::memory_order_acquire)) {
      header->owner_tid.store(tid, std::memory_order_relaxed);
      return LaneWriter(header,
                        LaneDataAt(base_, geometry_.lane_count, geometry_.lane_data_bytes, lane),
                        geometry_.lane_data_bytes);
    }
  }
  auto* region_header = static_cast<RegionHeader*>(base_);
  region_header->no_lane_dropped_records.fetch_add(1, std::memory_order_relaxed);
  return LaneWriter();
}

}  // namespace protond::ring
