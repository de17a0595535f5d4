#include "daemon/ingest/ring_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/record/record_format.h"

namespace protond::ring {
namespace {

constexpr int kRequiredSeals = F_SEAL_SHRINK | F_SEAL_GROW;

absl::Status CheckFile(int fd, uint64_t claimed_bytes) {
  struct stat st;
  if (fstat(fd, &st) != 0) return absl::ErrnoToStatus(errno, "fstat of the region");
  if (static_cast<uint64_t>(st.st_size) != claimed_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "region is ", st.st_size, " bytes, but the process registered ", claimed_bytes));
  }
  const int seals = fcntl(fd, F_GET_SEALS);
  if (seals < 0 || (seals & kRequiredSeals) != kRequiredSeals) {
    return absl::InvalidArgumentError(
        "region is not sealed against shrinking and growing (F_SEAL_SHRINK|F_SEAL_GROW)");
  }
  return absl::OkStatus();
}

absl::Status CheckHeader(const RegionHeader& header, uint64_t bytes) {
  if (header.magic != kRegionMagic) return absl::InvalidArgumentError("region has a wrong magic");
  if (header.layout_version != kRegionLayoutVersion ||
      header.record_format_version < record::kOldestReadableRecordFormatVersion ||
      header.record_format_version > record::kRecordFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        "region has layout version ", header.layout_version, " and record format version ",
        header.record_format_version, "; this daemon reads ", kRegionLayoutVersion, " and ",
        record::kOldestReadableRecordFormatVersion, " to ", record::kRecordFormatVersion));
  }
  const RegionGeometry geometry{header.lane_count, header.lane_data_bytes};
  if (absl::Status s = ValidateGeometry(geometry); !s.ok()) return s;
  if (RegionBytes(geometry.lane_count, geometry.lane_data_bytes) != bytes) {
    return absl::InvalidArgumentError("region header geometry does not match the region size");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RegionReader> RegionReader::Attach(int fd, uint64_t claimed_bytes) {
  absl::Status status = CheckFile(fd, claimed_bytes);
  if (!status.ok() || claimed_bytes < sizeof(RegionHeader)) {
    close(fd);
    return status.ok() ? absl::InvalidArgumentError("region is smaller than its header") : status;
  }
  void* base = mmap(nullptr, claimed_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int error = errno;
  close(fd);
  if (base == MAP_FAILED) return absl::ErrnoToStatus(error, "mapping the process's region");
  // Copy the geometry once: the process may change its header at any time.
  RegionHeader header_copy;
  std::memcpy(static_cast<void*>(&header_copy), base, sizeof(header_copy));
  if (absl::Status s = CheckHeader(header_copy, claimed_bytes); !s.ok()) {
    munmap(base, claimed_bytes);
    return s;
  }
  return RegionReader(base, claimed_bytes, header_copy.lane_count, header_copy.lane_data_bytes);
}

RegionReader::RegionReader(RegionReader&& other) noexcept { *this = std::move(other); }

RegionReader& RegionReader::operator=(RegionReader&& other) noexcept {
  std::swap(base_, other.base_);
  std::swap(bytes_, other.bytes_);
  std::swap(lane_count_, other.lane_count_);
  std::swap(lane_data_bytes_, other.lane_data_bytes_);
  return *this;
}

RegionReader::~RegionReader() {
  if (base_ != nullptr) munmap(base_, bytes_);
}

absl::StatusOr<uint64_t> RegionReader::CopyLane(uint32_t lane, uint64_t read_pos,
                                                std::vector<uint8_t>& out) {
  const uint64_t write_pos = LaneHeaderAt(base_, lane)->write_pos.load(std::memory_order_acquire);
  if (write_pos < read_pos) {
    return absl::DataLossError(
        absl::StrCat("write position ", write_pos, " is behind the read position ", read_pos));
  }
  if (write_pos - read_pos > lane_data_bytes_) {
    return absl::DataLossError(absl::StrCat("write position ", write_pos, " is ",
                                            write_pos - read_pos,
                                            " bytes ahead of the read position, "
                                            "more than the lane's ",
                                            lane_data_bytes_));
  }
  if (write_pos % record::kAlignment != 0) {
    return absl::DataLossError(absl::StrCat("write position ", write_pos, " is not 8-aligned"));
  }
  const uint8_t* data = LaneDataAt(base_, lane_count_, lane_data_bytes_, lane);
  const uint64_t mask = lane_data_bytes_ - 1;
  const uint64_t bytes = write_pos - read_pos;
  const uint64_t offset = read_pos & mask;
  const uint64_t first = std::min(bytes, lane_data_bytes_ - offset);
  out.insert(out.end(), data + offset, data + offset + first);
  out.insert(out.end(), data, data + (bytes - first));
  return write_pos;
}

uint64_t RegionReader::PendingBytesUntrusted(uint32_t lane, uint64_t read_pos) const {
  const uint64_t write_pos = LaneHeaderAt(base_, lane)->write_pos.load(std::memory_order_relaxed);
  return write_pos > read_pos ? std::min<uint64_t>(write_pos - read_pos, lane_data_bytes_) : 0;
}

void RegionReader::ReleaseLane(uint32_t lane, uint64_t read_pos) {
  LaneHeaderAt(base_, lane)->read_pos.store(read_pos, std::memory_order_release);
}

uint64_t RegionReader::DroppedRecordsUntrusted(uint32_t lane) const {
  return LaneHeaderAt(base_, lane)->dropped_records.load(std::memory_order_relaxed);
}

uint64_t RegionReader::NoLaneDroppedRecordsUntrusted() const {
  return static_cast<const RegionHeader*>(base_)->no_lane_dropped_records.load(
      std::memory_order_relaxed);
}

RegionExit RegionReader::ExitStateUntrusted() const {
  const uint32_t state =
      static_cast<const RegionHeader*>(base_)->exit_state.load(std::memory_order_acquire);
  return state == kExitNotYet || state == kExitNormal ? static_cast<RegionExit>(state)
                                                      : kExitNotTold;
}

}  // namespace protond::ring
