// The producer half of the shared-memory region (layout in common/ring/ring_layout.h): the shim
// creates the region as a sealed memfd, and each writing thread claims one lane and appends
// records to it.
// TryWrite never blocks, never allocates and makes no system call; a record that does not fit is
// dropped and counted in the lane header.
#ifndef PROTOND_SHIM_RING_RING_WRITER_H_
#define PROTOND_SHIM_RING_RING_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/status/statusor.h"
#include "common/ring/ring_layout.h"

namespace protond::ring {

// One claimed lane. Only its owner thread may call TryWrite.
class LaneWriter {
 public:
  LaneWriter() = default;
  LaneWriter(LaneHeader* header, uint8_t* data, uint32_t data_bytes)
      : header_(header),
        data_(data),
        mask_(data_bytes - 1),
        write_pos_(header->write_pos.load(std::memory_order_relaxed)),
        read_pos_cache_(header->read_pos.load(std::memory_order_acquire)) {}

  bool valid() const { return header_ != nullptr; }

  // Appends one record of `bytes` (a multiple of 8). Returns false, and counts the drop, when
  // the lane lacks the space.
  bool TryWrite(const void* record, size_t bytes) {
    if (TryAppend(record, bytes)) return true;
    CountDropped();
    return false;
  }

  // TryWrite without counting a drop: for what the daemon does not count as a record either
  // (announcements and definitions), whose loss costs the record that needed them, counted by
  // the caller.
  bool TryAppend(const void* record, size_t bytes) {
    if (!HasSpace(bytes)) return false;
    Copy(static_cast<const uint8_t*>(record), bytes);
    write_pos_ += bytes;
    header_->write_pos.store(write_pos_, std::memory_order_release);
    return true;
  }

  // Whether `bytes` more fit now (the daemon may free space at any time).
  bool HasSpace(size_t bytes) {
    const uint64_t capacity = uint64_t{mask_} + 1;
    if (write_pos_ + bytes - read_pos_cache_ <= capacity) return true;
    // Only look at the daemon's cache line when the cached position says the lane is full.
    read_pos_cache_ = header_->read_pos.load(std::memory_order_acquire);
    return write_pos_ + bytes - read_pos_cache_ <= capacity;
  }

  // Counts records the caller gave up on before writing (for example, a definition did not fit,
  // or CUPTI lost them), so that loss stays exact.
  void CountDropped(uint64_t count = 1) {
    header_->dropped_records.store(header_->dropped_records.load(std::memory_order_relaxed) + count,
                                   std::memory_order_relaxed);
  }

  // Gives the lane back for another thread; records already written stay for the daemon.
  void Release() {
    header_->owner_tid.store(0, std::memory_order_relaxed);
    header_->claim.store(kLaneFree, std::memory_order_release);
    header_ = nullptr;
  }

 private:
  void Copy(const uint8_t* src, size_t bytes) {
    const size_t offset = write_pos_ & mask_;
    const size_t room = mask_ + 1 - offset;
    // The common case is one copy of a size the compiler knows (16 or 24 bytes: a few moves).
    if (bytes <= room) [[likely]] {
      std::memcpy(data_ + offset, src, bytes);
      return;
    }
    std::memcpy(data_ + offset, src, room);
    std::memcpy(data_, src + room, bytes - room);
  }

  LaneHeader* header_ = nullptr;
  uint8_t* data_ = nullptr;
  uint32_t mask_ = 0;
  uint64_t write_pos_ = 0;
  uint64_t read_pos_cache_ = 0;
};

// The region, as created and owned by the profiled process.
class WritableRegion {
 public:
  // Creates a memfd of the geometry's size, maps it, writes the header and seals the size, so
  // that no one can shrink the mapping under the daemon.
  static absl::StatusOr<WritableRegion> Create(const RegionGeometry& geometry);

  WritableRegion(WritableRegion&& other) noexcept;
  WritableRegion& operator=(WritableRegion&& other) noexcept;
  ~WritableRegion();

  int fd() const { return fd_; }
  uint64_t bytes() const { return bytes_; }
  void* base() const { return base_; }

  // True once any thread wrote (or tried to write) a record.
  bool HasRecords() const;
  // The process ends by exit() (the shim's atexit handler): the daemon, seeing the process gone,
  // tells this from a process killed or crashed, whose header still says kExitNotYet.
  void MarkNormalExit();

  // Claims a free lane for thread `tid` (lock-free); an invalid writer when all are taken, after
  // counting the record the caller could not write.
  LaneWriter ClaimLane(uint32_t tid);

 private:
  WritableRegion(int fd, void* base, uint64_t bytes, RegionGeometry geometry)
      : fd_(fd), base_(base), bytes_(bytes), geometry_(geometry) {}

  int fd_ = -1;
  void* base_ = nullptr;
  uint64_t bytes_ = 0;
  RegionGeometry geometry_;
};

}  // namespace protond::ring

#endif  // PROTOND_SHIM_RING_RING_WRITER_H_
