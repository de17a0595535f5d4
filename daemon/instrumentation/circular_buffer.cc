#include "daemon/instrumentation/circular_buffer.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "daemon/instrumentation/internal/warp_ring.h"
#include "mlir-instrument/buffer/buffer_layout.h"

namespace protond::instrumentation {
namespace {

uint64_t MetadataBytes(const BufferLayout& layout) { return IndexedHeaderBytes(layout.num_warps); }

uint64_t ProfiledWarpCount(const BufferLayout& layout) {
  return layout.profiled_warps.empty() ? layout.num_warps : layout.profiled_warps.size();
}

uint32_t ProfiledWarpId(const BufferLayout& layout, size_t i) {
  return layout.profiled_warps.empty() ? static_cast<uint32_t>(i) : layout.profiled_warps[i];
}

absl::Status CheckLayout(const BufferLayout& layout) {
  if (layout.num_warps == 0) {
    return absl::InvalidArgumentError("instrumentation layout: 0 warps per CTA");
  }
  if (layout.block_bytes < MetadataBytes(layout)) {
    return absl::InvalidArgumentError(
        absl::StrCat("instrumentation layout: a ", layout.block_bytes,
                     "-byte CTA block cannot hold ", "the header and write indices of ",
                     layout.num_warps, " warps (", MetadataBytes(layout), " bytes)"));
  }
  if (layout.data_bytes > layout.block_bytes - MetadataBytes(layout)) {
    return absl::InvalidArgumentError(
        absl::StrCat("instrumentation layout: ", layout.data_bytes, " data bytes do not fit a ",
                     layout.block_bytes, "-byte CTA block with ", layout.num_warps, " warps"));
  }
  for (size_t i = 0; i < layout.profiled_warps.size(); ++i) {
    const uint32_t warp = layout.profiled_warps[i];
    if (warp >= layout.num_warps || (i > 0 && warp <= layout.profiled_warps[i - 1])) {
      return absl::InvalidArgumentError(absl::StrCat("instrumentation layout: profiled warp ", warp,
                                                     " is out of order or not ", "below the CTA's ",
                                                     layout.num_warps, " warps"));
    }
  }
  if (layout.scope_names.size() > kMaxScopes) {
    return absl::InvalidArgumentError(
        absl::StrCat("instrumentation layout: ", layout.scope_names.size(),
                     " scope names, but a record has room for ", kMaxScopes, " scope ids"));
  }
  return absl::OkStatus();
}

// Checks the data bytes that block `block` declares against the layout (or, when the layout
// leaves them open, against the first profiled block's, `*expected`), and returns the bytes of
// one warp's ring.
absl::StatusOr<uint64_t> CheckDataBytes(uint32_t block, uint32_t data_bytes_untrusted,
                                        const BufferLayout& layout, uint32_t& expected) {
  const uint32_t data_bytes = data_bytes_untrusted;
  if (expected != 0 && data_bytes != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("block ", block, ": header capacity ", data_bytes, " does not match ",
                     layout.data_bytes != 0 ? "the layout's " : "the first block's ", expected));
  }
  if (data_bytes > layout.block_bytes - MetadataBytes(layout)) {
    return absl::InvalidArgumentError(
        absl::StrCat("block ", block, ": header capacity ", data_bytes, " does not fit a ",
                     layout.block_bytes, "-byte CTA block with ", layout.num_warps, " warps"));
  }
  // Triton gives each profiled warp a whole number of words; a ring must hold whole records.
  const uint64_t warps = ProfiledWarpCount(layout);
  const uint64_t ring_bytes = data_bytes / kWordBytes / warps * kWordBytes;
  if (ring_bytes == 0 || ring_bytes % kRecordBytes != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("block ", block, ": header capacity ", data_bytes, " does not split into ",
                     "whole 8-byte records among ", warps, " profiled warps"));
  }
  expected = data_bytes;
  return ring_bytes;
}

struct ScopeSums {
  uint64_t count = 0;
  uint64_t cycles = 0;
  uint64_t adjusted_cycles = 0;
};
using SumsByPath = std::map<std::vector<uint32_t>, ScopeSums>;

// The scope ids from the outermost interval enclosing `intervals[i]` to its own.
std::vector<uint32_t> PathOf(const std::vector<ScopeInterval>& intervals, size_t i) {
  std::vector<uint32_t> path;
  for (int32_t at = static_cast<int32_t>(i); at >= 0; at = intervals[at].parent) {
    path.push_back(intervals[at].scope_id);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

absl::StatusOr<BlockTrace> DecodeBlock(uint32_t block, std::span<const uint8_t> bytes,
                                       const BufferLayout& layout, uint64_t ring_bytes,
                                       DecodedBuffer& decoded, SumsByPath& sums) {
  const uint8_t* base = bytes.data();
  BlockTrace trace;
  trace.block_id = LoadU32(base + kBlockIdOffset);
  trace.sm_id = LoadU32(base + kSmIdOffset);
  trace.init_time_ns = LoadU64(base + kInitTimeOffset);
  trace.pre_finalize_time_ns = LoadU64(base + kPreFinalizeTimeOffset);
  trace.post_finalize_time_ns = LoadU64(base + kPostFinalizeTimeOffset);
  internal::WarpRingProblems problems;
  for (size_t i = 0; i < ProfiledWarpCount(layout); ++i) {
    const uint32_t warp = ProfiledWarpId(layout, i);
    const uint32_t index_words = LoadU32(base + kBlockHeaderBytes + kWriteIndexBytes * warp);
    if (index_words % (kRecordBytes / kWordBytes) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("block ", block, " warp ", warp, ": write index ", index_words,
                       " is not a whole number of 8-byte records (2 words each)"));
    }
    auto ring = bytes.subspan(MetadataBytes(layout) + i * ring_bytes, ring_bytes);
    WarpTrace warp_trace =
        internal::ReadWarpRing(warp, ring, index_words / 2, layout.record_cost_cycles, problems);
    decoded.problems.records_lost += warp_trace.records_lost;
    decoded.problems.warps_with_lost_records += warp_trace.records_lost > 0;
    for (size_t j = 0; j < warp_trace.intervals.size(); ++j) {
      const ScopeInterval& interval = warp_trace.intervals[j];
      ScopeSums& sum = sums[PathOf(warp_trace.intervals, j)];
      ++sum.count;
      sum.cycles += interval.cycles;
      sum.adjusted_cycles += interval.adjusted_cycles;
    }
    trace.warps.push_back(std::move(warp_trace));
  }
  decoded.problems.starts_without_end += problems.starts_without_end;
  decoded.problems.ends_without_start += problems.ends_without_start;
  decoded.problems.clock_overflows += problems.clock_overflows;
  return trace;
}

void SummarizeScopes(const SumsByPath& sums, const BufferLayout& layout, DecodedBuffer& decoded) {
  const double units = static_cast<double>(layout.num_warps) * decoded.num_blocks;
  std::set<uint32_t> unnamed;
  for (const auto& [path, sum] : sums) {
    ScopeTotals totals;
    totals.scope_id = path.back();
    totals.path = path;
    totals.count = sum.count;
    totals.cycles = sum.cycles;
    totals.adjusted_cycles = sum.adjusted_cycles;
    totals.normalized_cycles = static_cast<double>(sum.cycles) / units;
    if (totals.scope_id < layout.scope_names.size()) {
      totals.name = layout.scope_names[totals.scope_id];
    }
    if (totals.name.empty()) unnamed.insert(totals.scope_id);
    decoded.scopes.push_back(std::move(totals));
  }
  decoded.problems.unnamed_scope_ids += unnamed.size();
}

// Gives each interval the index of its place in `decoded.scopes`, which holds every path.
void PlaceIntervals(DecodedBuffer& decoded) {
  std::map<std::vector<uint32_t>, uint32_t> places;
  for (uint32_t i = 0; i < decoded.scopes.size(); ++i) places[decoded.scopes[i].path] = i;
  for (BlockTrace& block : decoded.blocks) {
    for (WarpTrace& warp : block.warps) {
      for (size_t i = 0; i < warp.intervals.size(); ++i) {
        warp.intervals[i].place = places.at(PathOf(warp.intervals, i));
      }
    }
  }
}

}  // namespace

absl::StatusOr<DecodedBuffer> DecodeCircularBuffer(std::span<const uint8_t> buffer,
                                                   const BufferLayout& layout) {
  RETURN_IF_ERROR(CheckLayout(layout));
  if (buffer.empty()) return absl::InvalidArgumentError("instrumentation buffer: 0 bytes");
  if (buffer.size() % layout.block_bytes != 0 || buffer.size() / layout.block_bytes > UINT32_MAX) {
    return absl::InvalidArgumentError(absl::StrCat("instrumentation buffer: ", buffer.size(),
                                                   " bytes is not a whole number of ",
                                                   layout.block_bytes, "-byte CTA blocks"));
  }
  DecodedBuffer decoded;
  decoded.num_blocks = static_cast<uint32_t>(buffer.size() / layout.block_bytes);
  SumsByPath sums;
  uint32_t expected_data_bytes = layout.data_bytes;
  for (uint32_t block = 0; block < decoded.num_blocks; ++block) {
    auto bytes = buffer.subspan(uint64_t{block} * layout.block_bytes, layout.block_bytes);
    const uint32_t preamble = LoadU32(bytes.data() + kPreambleOffset);
    if (preamble == kUnprofiledPreamble) {
      ++decoded.problems.unprofiled_blocks;
      continue;
    }
    if (preamble != kProfiledPreamble) {
      return absl::InvalidArgumentError(absl::StrCat(
          "block ", block, ": preamble 0x", absl::Hex(preamble, absl::kZeroPad8),
          " is neither 0xdeadbeef nor 0 (not an instrumentation buffer, or a wrong block size)"));
    }
    ASSIGN_OR_RETURN(const uint64_t ring_bytes,
                     CheckDataBytes(block, LoadU32(bytes.data() + kDataBytesOffset), layout,
                                    expected_data_bytes));
    ASSIGN_OR_RETURN(BlockTrace trace,
                     DecodeBlock(block, bytes, layout, ring_bytes, decoded, sums));
    decoded.blocks.push_back(std::move(trace));
  }
  SummarizeScopes(sums, layout, decoded);
  PlaceIntervals(decoded);
  return decoded;
}

}  // namespace protond::instrumentation
