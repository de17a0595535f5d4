// The shared-memory region of one profiled process: a header and N lanes, each a single-producer
// ring owned by one writing thread. This header is the ABI both sides share; the shim writes
// records (shim/ring/ring_writer.h) and the daemon reads them (daemon/ingest/ring_reader.h).
// Documented in docs/record-format.md.
//
//   offset 0                     128                          128 + 128 * N
//   +----------------------------+----------------------------+--------------------------------+
//   | RegionHeader               | LaneHeader[0 .. N)         | lane data[0 .. N), each        |
//   | magic, version, geometry,  | producer line | consumer   | lane_data_bytes (a power of 2) |
//   | drops with no free lane    | line (128 B each)          |                                |
//   +----------------------------+----------------------------+--------------------------------+
//
// Invariants each side may rely on (the daemon verifies them, the shim keeps them):
// - write_pos and read_pos are byte positions that only grow; the byte for position p is at
//   data[p % lane_data_bytes]. Records may wrap around the end of the data area.
// - Only the lane's owner thread writes write_pos and dropped_records; it publishes write_pos
//   (release) after the record bytes are complete, so [read_pos, write_pos) holds whole records.
// - Only the daemon writes read_pos, and only after the records up to it are committed to the
//   store: space is released exactly once.
// - 0 <= write_pos - read_pos <= lane_data_bytes, both multiples of 8.
#ifndef PROTOND_COMMON_RING_RING_LAYOUT_H_
#define PROTOND_COMMON_RING_RING_LAYOUT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace protond::ring {

inline constexpr uint64_t kRegionMagic = 0x4e4f4947455244ULL;  // "DREGION" little-endian
inline constexpr uint32_t kRegionLayoutVersion = 1;
inline constexpr uint32_t kDefaultLaneCount = 64;
inline constexpr uint32_t kDefaultLaneDataBytes = 1u << 20;
inline constexpr uint32_t kMaxLaneCount = 1024;
inline constexpr uint32_t kMinLaneDataBytes = 1u << 12;
inline constexpr uint32_t kMaxLaneDataBytes = 1u << 28;

// How many lanes a region has and how large each lane's data area is.
struct RegionGeometry {
  uint32_t lane_count = kDefaultLaneCount;
  uint32_t lane_data_bytes = kDefaultLaneDataBytes;
};

// Checks a geometry against the limits above (the writer before creating a region, the reader on
// every header it attaches to); the message names the bad value.
absl::Status ValidateGeometry(const RegionGeometry& geometry);

// How the process ended, as its shim tells the daemon in the region's header: the only word of
// the region that outlives a SIGKILL with a meaning (the daemon reads it once the process is
// gone). No version bump: a shim older than the field leaves it 0.
enum RegionExit : uint32_t {
  kExitNotTold = 0,  // a shim older than the field: nothing is known
  kExitNotYet = 1,   // the shim's exit handler has not run: running, or ended without exit()
                     // (killed by a signal, crashed, _exit)
  kExitNormal = 2,   // exit() or a return from main: the shim's atexit handler ran
};

struct alignas(64) RegionHeader {
  uint64_t magic;
  uint32_t layout_version;
  uint32_t record_format_version;
  uint32_t lane_count;
  uint32_t lane_data_bytes;
  uint64_t region_bytes;
  // Records dropped because every lane was owned by another thread.
  std::atomic<uint64_t> no_lane_dropped_records;
  std::atomic<uint32_t> exit_state;  // RegionExit; written by the shim only
  uint8_t reserved[84];
};

enum LaneClaim : uint32_t { kLaneFree = 0, kLaneClaimed = 1 };

struct alignas(64) LaneHeader {
  // Producer cache line: written by the owning thread only.
  std::atomic<uint64_t> write_pos;
  std::atomic<uint64_t> dropped_records;  // records that did not fit, since the region was made
  std::atomic<uint32_t> claim;            // LaneClaim; taken by compare-and-swap
  std::atomic<uint32_t> owner_tid;
  uint8_t producer_reserved[40];
  // Consumer cache line: written by the daemon only.
  std::atomic<uint64_t> read_pos;
  uint8_t consumer_reserved[56];
};

static_assert(sizeof(RegionHeader) == 128);
static_assert(offsetof(RegionHeader, no_lane_dropped_records) == 32);
static_assert(offsetof(RegionHeader, exit_state) == 40);
static_assert(sizeof(LaneHeader) == 128);
static_assert(offsetof(LaneHeader, read_pos) == 64);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

constexpr uint64_t RegionBytes(uint32_t lane_count, uint32_t lane_data_bytes) {
  return sizeof(RegionHeader) + uint64_t{lane_count} * (sizeof(LaneHeader) + lane_data_bytes);
}

inline LaneHeader* LaneHeaderAt(void* region, uint32_t lane) {
  return reinterpret_cast<LaneHeader*>(static_cast<uint8_t*>(region) + sizeof(RegionHeader)) + lane;
}

inline const LaneHeader* LaneHeaderAt(const void* region, uint32_t lane) {
  return LaneHeaderAt(const_cast<void*>(region), lane);
}

inline uint8_t* LaneDataAt(void* region, uint32_t lane_count, uint32_t lane_data_bytes,
                           uint32_t lane) {
  return static_cast<uint8_t*>(region) + sizeof(RegionHeader) +
         uint64_t{lane_count} * sizeof(LaneHeader) + uint64_t{lane} * lane_data_bytes;
}

}  // namespace protond::ring

#endif  // PROTOND_COMMON_RING_RING_LAYOUT_H_
