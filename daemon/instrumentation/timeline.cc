#include "daemon/instrumentation/timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace protond::instrumentation {
namespace {

// SM clocks of real GPUs lie between these; a measured rate outside them is a broken header.
constexpr double kMinPlausibleCyclesPerNs = 0.1;
constexpr double kMaxPlausibleCyclesPerNs = 5.0;
constexpr double kMeasuredPercentile = 0.9;

struct CycleSpan {
  uint64_t first = std::numeric_limits<uint64_t>::max();
  uint64_t last = 0;
  bool empty() const { return first > last; }
};

CycleSpan SpanOf(const BlockTrace& block) {
  CycleSpan span;
  for (const WarpTrace& warp : block.warps) {
    for (const ScopeInterval& interval : warp.intervals) {
      span.first = std::min(span.first, interval.start_cycle);
      span.last = std::max(span.last, interval.end_cycle);
    }
  }
  return span;
}

std::optional<double> MeasuredCyclesPerNs(const DecodedBuffer& decoded) {
  std::vector<double> rates;
  for (const BlockTrace& block : decoded.blocks) {
    const CycleSpan span = SpanOf(block);
    if (span.empty() || block.pre_finalize_time_ns < block.init_time_ns + kMinMeasuredSpanNs) {
      continue;
    }
    rates.push_back(static_cast<double>(span.last - span.first) /
                    static_cast<double>(block.pre_finalize_time_ns - block.init_time_ns));
  }
  if (rates.empty()) return std::nullopt;
  const size_t at =
      static_cast<size_t>(kMeasuredPercentile * static_cast<double>(rates.size() - 1));
  std::nth_element(rates.begin(), rates.begin() + at, rates.end());
  const double rate = rates[at];
  if (rate < kMinPlausibleCyclesPerNs || rate > kMaxPlausibleCyclesPerNs) return std::nullopt;
  return rate;
}

uint64_t CyclesToNs(uint64_t cycles, double cycles_per_ns) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(cycles) / cycles_per_ns));
}

}  // namespace

KernelTimeline PlaceOnTimeline(const DecodedBuffer& decoded, uint32_t device_clock_khz,
                               size_t max_intervals) {
  KernelTimeline timeline;
  if (std::optional<double> measured = MeasuredCyclesPerNs(decoded)) {
    timeline.cycles_per_ns = *measured;
    timeline.clock_source = ClockSource::kMeasured;
  } else if (device_clock_khz != 0) {
    timeline.cycles_per_ns = device_clock_khz / 1e6;
    timeline.clock_source = ClockSource::kDeviceClock;
  }
  for (const BlockTrace& block : decoded.blocks) {
    const CycleSpan span = SpanOf(block);
    for (const WarpTrace& warp : block.warps) {
      for (const ScopeInterval& interval : warp.intervals) {
        if (timeline.intervals.size() == max_intervals) {
          ++timeline.left_out;
          continue;
        }
        const uint64_t start_ns = block.init_time_ns + CyclesToNs(interval.start_cycle - span.first,
                                                                  timeline.cycles_per_ns);
        timeline.intervals.push_back(
            {.sm_id = block.sm_id,
             .block_id = block.block_id,
             .warp_id = warp.warp_id,
             .place = interval.place,
             .start_ns = start_ns,
             .end_ns = start_ns + CyclesToNs(interval.cycles, timeline.cycles_per_ns),
             .cycles = interval.cycles});
      }
    }
  }
  return timeline;
}

}  // namespace protond::instrumentation
