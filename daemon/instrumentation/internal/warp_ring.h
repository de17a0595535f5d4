// The record level of the decoder: one warp's ring, read oldest record first, its starts paired
// with its ends. Shared by every entry point (device buffer, Triton's host buffer).
#ifndef PROTOND_DAEMON_INSTRUMENTATION_INTERNAL_WARP_RING_H_
#define PROTOND_DAEMON_INSTRUMENTATION_INTERNAL_WARP_RING_H_

#include <cstdint>
#include <span>

#include "daemon/instrumentation/circular_buffer.h"

namespace protond::instrumentation::internal {

struct WarpRingProblems {
  uint64_t starts_without_end = 0;
  uint64_t ends_without_start = 0;
  uint64_t clock_overflows = 0;
};

// Decodes `ring`, one warp's part of a block's data (a non-zero multiple of kRecordBytes, which
// the caller checks), into which `records_written` records were written in turn. A start while
// the same scope is open replaces the open one (counted as a start without end); an end with no
// open start is counted and skipped; starts still open at the end are counted.
WarpTrace ReadWarpRing(uint32_t warp_id, std::span<const uint8_t> ring, uint64_t records_written,
                       uint32_t record_cost_cycles, WarpRingProblems& problems);

}  // namespace protond::instrumentation::internal

#endif  // PROTOND_DAEMON_INSTRUMENTATION_INTERNAL_WARP_RING_H_
