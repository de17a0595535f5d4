#include "daemon/instrumentation/internal/warp_ring.h"

#include <algorithm>
#include <array>
#include <vector>

#include "mlir-instrument/buffer/buffer_layout.h"

namespace protond::instrumentation::internal {
namespace {

struct OpenStart {
  bool open = false;
  bool async = false;
  uint64_t sequence = 0;  // position of the start in write order, from the oldest kept record
  uint64_t clock = 0;
};

struct PairedSequences {
  uint64_t start = 0;
  uint64_t end = 0;
};

ScopeInterval MakeInterval(uint32_t scope_id, const OpenStart& start, uint64_t end_clock,
                           WarpRingProblems& problems) {
  ScopeInterval interval;
  interval.scope_id = scope_id;
  interval.start_cycle = start.clock;
  interval.async = start.async;
  // The 43-bit clock wrapped between start and end; no scope lasts 2^43 cycles (over an hour).
  if (end_clock < start.clock) {
    end_clock += kClockModulus;
    ++problems.clock_overflows;
  }
  interval.end_cycle = end_clock;
  interval.cycles = end_clock - start.clock;
  return interval;
}

// Proton's time shift: every paired record moves each later record back by one record's cost,
// so an interval loses the cost of each paired record after its start, up to its end included.
// One that would end before its start is given half a record's cost, as Proton does.
void AdjustForRecordCost(std::span<const PairedSequences> sequences, uint64_t records_read,
                         uint32_t record_cost_cycles, std::vector<ScopeInterval>& intervals) {
  std::vector<uint64_t> paired_before(records_read + 1, 0);  // paired records in [0, i)
  std::vector<bool> paired(records_read, false);
  for (const PairedSequences& pair : sequences) paired[pair.start] = paired[pair.end] = true;
  for (uint64_t i = 0; i < records_read; ++i) paired_before[i + 1] = paired_before[i] + paired[i];
  for (size_t i = 0; i < intervals.size(); ++i) {
    const uint64_t inside =
        paired_before[sequences[i].end + 1] - paired_before[sequences[i].start + 1];
    const uint64_t cost = inside * record_cost_cycles;
    ScopeInterval& interval = intervals[i];
    interval.adjusted_cycles =
        interval.cycles >= cost ? interval.cycles - cost : record_cost_cycles / 2;
  }
}

// Nests each interval in the innermost non-async interval around it, by record order (clocks of
// different records may be equal; their order in the ring is not).
void FindParents(std::span<const PairedSequences> sequences,
                 std::vector<ScopeInterval>& intervals) {
  std::vector<size_t> by_start(intervals.size());
  for (size_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  std::sort(by_start.begin(), by_start.end(),
            [&](size_t a, size_t b) { return sequences[a].start < sequences[b].start; });
  std::vector<size_t> open;  // non-async intervals around the current start, innermost last
  for (size_t i : by_start) {
    const auto encloses = [&](size_t outer) { return sequences[outer].end > sequences[i].end; };
    if (intervals[i].async) {
      // It may outlast scopes around its start: its parent is the innermost that it does not.
      auto outer = std::find_if(open.rbegin(), open.rend(), encloses);
      if (outer != open.rend()) intervals[i].parent = static_cast<int32_t>(*outer);
      continue;
    }
    while (!open.empty() && !encloses(open.back())) open.pop_back();
    if (!open.empty()) intervals[i].parent = static_cast<int32_t>(open.back());
    open.push_back(i);
  }
}

}  // namespace

WarpTrace ReadWarpRing(uint32_t warp_id, std::span<const uint8_t> ring, uint64_t records_written,
                       uint32_t record_cost_cycles, WarpRingProblems& problems) {
  const uint64_t capacity = ring.size() / kRecordBytes;
  WarpTrace trace;
  trace.warp_id = warp_id;
  trace.records_written = records_written;
  const bool wrapped = records_written > capacity;
  const uint64_t records_read = wrapped ? capacity : records_written;
  trace.records_lost = records_written - records_read;
  // Record k of the warp sits at k mod capacity; the oldest kept one is record written - capacity.
  const uint64_t first_position = wrapped ? records_written % capacity : 0;

  std::array<OpenStart, kMaxScopes> open{};
  std::vector<PairedSequences> sequences;
  for (uint64_t i = 0; i < records_read; ++i) {
    const uint64_t position = (first_position + i) % capacity;
    const Record record = DecodeRecord(ring.data() + position * kRecordBytes);
    OpenStart& start = open[record.scope_id];
    if (!record.is_end) {
      if (start.open) ++problems.starts_without_end;
      start =
          OpenStart{.open = true, .async = record.is_async, .sequence = i, .clock = record.clock};
      continue;
    }
    if (!start.open) {
      ++problems.ends_without_start;
      continue;
    }
    trace.intervals.push_back(MakeInterval(record.scope_id, start, record.clock, problems));
    sequences.push_back({.start = start.sequence, .end = i});
    start.open = false;
  }
  for (const OpenStart& start : open) problems.starts_without_end += start.open;
  AdjustForRecordCost(sequences, records_read, record_cost_cycles, trace.intervals);
  FindParents(sequences, trace.intervals);
  return trace;
}

}  // namespace protond::instrumentation::internal
