// The daemon's half of the shared-memory region (layout in common/ring/ring_layout.h).
// The region belongs to an untrusted process: the reader checks the size, seals and header on
// attach, snapshots positions into locals before using them, copies records out before anyone
// decodes them, and reports a lane whose positions are impossible instead of trusting it.
// One thread (the daemon's ingest thread) uses a RegionReader.
#ifndef PROTOND_DAEMON_INGEST_RING_READER_H_
#define PROTOND_DAEMON_INGEST_RING_READER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ring/ring_layout.h"

namespace protond::ring {

class RegionReader {
 public:
  // Maps the memfd `fd` (the caller's own descriptor; the reader dups nothing and closes it
  // after mapping). `claimed_bytes` is the size the process registered.
  static absl::StatusOr<RegionReader> Attach(int fd, uint64_t claimed_bytes);

  RegionReader(RegionReader&& other) noexcept;
  RegionReader& operator=(RegionReader&& other) noexcept;
  ~RegionReader();

  uint32_t lane_count() const { return lane_count_; }
  uint32_t lane_data_bytes() const { return lane_data_bytes_; }

  // Appends the bytes of `lane` from `read_pos` (the daemon's own, committed position) to the
  // current write position onto `out`, and returns that write position. An error (DataLoss)
  // names the impossible position; the lane can no longer be read.
  absl::StatusOr<uint64_t> CopyLane(uint32_t lane, uint64_t read_pos, std::vector<uint8_t>& out);

  // Hands the space up to `read_pos` back to the writer. Call only after the records up to it
  // are committed.
  void ReleaseLane(uint32_t lane, uint64_t read_pos);

  // The bytes written to `lane` past `read_pos`, at most the lane's size (untrusted: a hint of
  // when to drain, never used to read).
  uint64_t PendingBytesUntrusted(uint32_t lane, uint64_t read_pos) const;

  // Counters the writer keeps (untrusted: for reporting only).
  uint64_t DroppedRecordsUntrusted(uint32_t lane) const;
  uint64_t NoLaneDroppedRecordsUntrusted() const;
  // What the shim says of its process's end (RegionExit; untrusted: any other value is
  // kExitNotTold). Final once the process is gone.
  RegionExit ExitStateUntrusted() const;

 private:
  RegionReader(void* base, uint64_t bytes, uint32_t lane_count, uint32_t lane_data_bytes)
      : base_(base), bytes_(bytes), lane_count_(lane_count), lane_data_bytes_(lane_data_bytes) {}

  void* base_ = nullptr;
  uint64_t bytes_ = 0;
  uint32_t lane_count_ = 0;
  uint32_t lane_data_bytes_ = 0;
};

}  // namespace protond::ring

#endif  // PROTOND_DAEMON_INGEST_RING_READER_H_
