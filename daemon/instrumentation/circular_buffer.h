// Decodes the device buffer of an instrumented kernel (Proton's circular layout, defined in
// mlir-instrument/buffer/buffer_layout.h) into per-warp scope intervals and per-scope totals
// with Proton's metrics. The bytes are
// untrusted: every read is bounds-checked, a malformed layout is an error naming the block and
// the value, and soft problems (lost records, unmatched records, clock wraps) are counted in
// DecodeProblems, never fatal. Pure functions: any thread, no shared state.
#ifndef PROTOND_DAEMON_INSTRUMENTATION_CIRCULAR_BUFFER_H_
#define PROTOND_DAEMON_INSTRUMENTATION_CIRCULAR_BUFFER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace protond::instrumentation {

// What the compiler knows about the buffer; nothing here is read from the buffer.
struct BufferLayout {
  uint32_t block_bytes = 0;  // one CTA's block: header, write indices, data, padding
  uint32_t num_warps = 0;    // warps per CTA: one write index each
  // Data bytes per block, as every profiled block's header must say; 0 takes it from the first
  // profiled block's header, and then all blocks must agree with it.
  uint32_t data_bytes = 0;
  // Warps that record, ascending, each with its part of the data; empty means all warps.
  std::vector<uint32_t> profiled_warps;
  // Scope names by scope id; an id past the end, or an empty name, counts as unnamed.
  std::vector<std::string> scope_names;
  // Cycles one record costs the warp, taken off each interval in adjusted_cycles (Proton's
  // time shift: 7 on NVIDIA, 36 on AMD, 0 for none).
  uint32_t record_cost_cycles = 7;
};

// One start and its end, of one scope in one warp. Cycles are the SM's clock; an end that
// wrapped past 2^43 is unwrapped (end_cycle = its clock + 2^43).
struct ScopeInterval {
  uint32_t scope_id = 0;
  uint64_t start_cycle = 0;
  uint64_t end_cycle = 0;
  uint64_t cycles = 0;           // end_cycle - start_cycle
  uint64_t adjusted_cycles = 0;  // cycles less the cost of the records inside it (see docs)
  bool async = false;            // the start record carried the async flag
  // The innermost interval of the same warp that encloses this one (its start before this one's
  // and its end after), as an index into the warp's intervals; -1 when none does. Async
  // intervals enclose nothing: they may overlap anything.
  int32_t parent = -1;
  // Where it is counted: its index in DecodedBuffer::scopes (the place of its path).
  uint32_t place = 0;
};

struct WarpTrace {
  uint32_t warp_id = 0;
  uint64_t records_written = 0;          // by the write index
  uint64_t records_lost = 0;             // overwritten when the ring wrapped
  std::vector<ScopeInterval> intervals;  // in the order their ends were written
};

struct BlockTrace {
  uint32_t block_id = 0;  // linear CTA id, as the block's header says
  uint32_t sm_id = 0;
  uint64_t init_time_ns = 0;  // the GPU's global timer
  uint64_t pre_finalize_time_ns = 0;
  uint64_t post_finalize_time_ns = 0;
  std::vector<WarpTrace> warps;  // the profiled warps, in layout order
};

// Proton's per-scope metrics for one kernel launch, per place in the in-kernel scope tree: a scope
// run inside another is counted under it (as Proton nests scopes by the compiler's parents).
struct ScopeTotals {
  uint32_t scope_id = 0;
  std::vector<uint32_t> path;  // scope ids from the outermost enclosing scope to this one
  std::string name;            // empty when the layout names no such scope
  uint64_t count = 0;
  uint64_t cycles = 0;  // Proton's "cycles": the sum of the intervals' cycles
  uint64_t adjusted_cycles = 0;
  // Proton's "normalized_cycles": cycles / (num_warps * every block in the buffer).
  double normalized_cycles = 0;
};

struct DecodeProblems {
  uint64_t unprofiled_blocks = 0;  // preamble 0
  uint64_t records_lost = 0;       // to wrap-around
  uint64_t warps_with_lost_records = 0;
  uint64_t starts_without_end = 0;
  uint64_t ends_without_start = 0;
  uint64_t clock_overflows = 0;    // intervals unwrapped across the 43-bit boundary
  uint64_t unnamed_scope_ids = 0;  // distinct scope ids in intervals with no name
};

struct DecodedBuffer {
  uint32_t num_blocks = 0;          // every block in the buffer, profiled or not
  std::vector<BlockTrace> blocks;   // the profiled blocks, in buffer order
  std::vector<ScopeTotals> scopes;  // places with at least one interval, by path
  DecodeProblems problems;
};

// Decodes `buffer`, the whole device buffer (all CTAs). InvalidArgumentError, naming the block,
// warp and value, for: a layout that cannot hold its own header, a buffer that is not a whole
// number of blocks, a preamble neither 0xDEADBEEF nor 0, a header's data bytes that differ from
// the layout's or do not fit the block or do not split into whole records among the profiled
// warps, and a write index that is not a whole number of records.
absl::StatusOr<DecodedBuffer> DecodeCircularBuffer(std::span<const uint8_t> buffer,
                                                   const BufferLayout& layout);

// The soft problems as one sentence for a session's status line, such as "instrumentation: 12
// records lost to wrap-around in 3 warps (buffer too small: raise buffer_size); 1 scope started
// without end". Empty when there are none.
std::string DescribeProblems(const DecodeProblems& problems);
// The same without "instrumentation: ", for a line that names its subject otherwise.
std::string ListProblems(const DecodeProblems& problems);

// Adds the problems of another decode (of another launch) to `total`: counts add up, and
// unnamed_scope_ids, a number of distinct ids, keeps the larger.
void AddProblems(const DecodeProblems& more, DecodeProblems& total);

}  // namespace protond::instrumentation

#endif  // PROTOND_DAEMON_INSTRUMENTATION_CIRCULAR_BUFFER_H_
