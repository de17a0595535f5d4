// Places a decoded buffer's intervals in time, for a trace session's intra-kernel timeline. The
// records carry SM cycles, which count on each SM's own clock from an arbitrary start; each
// block's header carries the GPU's global timer (ns) at the block's start and end. A block's
// intervals are laid from its init time at the SM clock's rate: the block's first record at its
// init time, every other record at its distance in cycles from that one.
#ifndef PROTOND_DAEMON_INSTRUMENTATION_TIMELINE_H_
#define PROTOND_DAEMON_INSTRUMENTATION_TIMELINE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "daemon/instrumentation/circular_buffer.h"

namespace protond::instrumentation {

// Where the SM clock's rate came from.
enum class ClockSource {
  kMeasured,     // the buffer's own blocks: cycles recorded against global-timer ns
  kDeviceClock,  // the device's clock rate, as CUDA reports it
  kAssumed,      // neither: 1 GHz, as Proton assumes
};

// One interval of one warp, in global-timer ns.
struct PlacedInterval {
  uint32_t sm_id = 0;
  uint32_t block_id = 0;
  uint32_t warp_id = 0;
  uint32_t place = 0;  // index in DecodedBuffer::scopes
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t cycles = 0;
};

struct KernelTimeline {
  double cycles_per_ns = 1.0;
  ClockSource clock_source = ClockSource::kAssumed;
  std::vector<PlacedInterval> intervals;  // by block, warp, then the order of their ends
  uint64_t left_out = 0;                  // intervals past `max_intervals`
};

// A block is measured only when its records span at least this long on the global timer, whose
// ticks are coarse enough (32 ns and more) to make a shorter span's rate unreliable.
inline constexpr uint64_t kMinMeasuredSpanNs = 10'000;

// The rate is the 90th percentile, over blocks that span at least kMinMeasuredSpanNs, of the
// block's cycles between its first and last record over its init-to-pre-finalize time (each
// block's ratio is at most the true rate: the records start after init and end before
// finalize); without such blocks, `device_clock_khz` when not 0; else 1 GHz. At most
// `max_intervals` intervals are placed, in buffer order.
KernelTimeline PlaceOnTimeline(const DecodedBuffer& decoded, uint32_t device_clock_khz,
                               size_t max_intervals);

}  // namespace protond::instrumentation

#endif  // PROTOND_DAEMON_INSTRUMENTATION_TIMELINE_H_
