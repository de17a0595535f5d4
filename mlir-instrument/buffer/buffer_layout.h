// The device buffer of an instrumented kernel (Proton's circular layout, Triton 3.6): what one
// CTA's block holds and how a record is encoded. The one definition of the format: the MLIR
// lowering that writes it (mlir-instrument/lib/Conversion/ProtonGPUToLLVM) and protond's decoder
// (daemon/instrumentation) both use these constants, and neither spells a number of its own.
// No MLIR here: the daemon builds without it. Everything is little-endian.
//
// One block per CTA, `block_bytes` each (BlockBytes: align_up(40 + 4 * num_warps + data, 128)):
//
//   0      4        8      12          16          24               32                40
//   +------+--------+------+-----------+-----------+----------------+-----------------+
//   | pre- | linear | SM   | data      | init time | pre-finalize   | post-finalize   |
//   | amble| blk id | id   | bytes (C) | (u64 ns)  | time (u64 ns)  | time (u64 ns)   |
//   +------+--------+------+-----------+-----------+----------------+-----------------+
//   | write index of warp 0 .. num_warps-1 (u32 each, in 4-byte words, only grows)   |
//   +---------------------------------------------------------------------------------+
//   | data: C bytes split evenly among the profiled warps, in their order; each part |
//   | is a ring of 8-byte records: record k of a warp sits at k mod (part / 8)       |
//   +---------------------------------------------------------------------------------+
//   | padding up to block_bytes                                                       |
//   +---------------------------------------------------------------------------------+
//
// The preamble is 0xDEADBEEF in a block whose CTA ran the instrumented prologue, 0 in one that
// never did. A write index past the warp's part means the ring wrapped: the oldest records were
// overwritten, and the oldest that survives is record (index / 2 - part / 8).
//
// A record (two u32 words), written by lane 0 of the warp:
//
//   word 0:  31      30 ........ 23   22      21 ....... 11   10 ........ 0
//           +-------+---------------+-------+---------------+--------------+
//           | end   | scope id (8)  | async | reserved      | clock 42..32 |
//           +-------+---------------+-------+---------------+--------------+
//   word 1:  clock 31..0
//
// The clock is the SM's cycle counter cut to 43 bits, so it wraps about every 73 minutes at
// 2 GHz: an end below its start crossed that boundary.
#ifndef PROTOND_MLIR_INSTRUMENT_BUFFER_BUFFER_LAYOUT_H_
#define PROTOND_MLIR_INSTRUMENT_BUFFER_BUFFER_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace protond::instrumentation {

inline constexpr uint32_t kProfiledPreamble = 0xDEADBEEF;
inline constexpr uint32_t kUnprofiledPreamble = 0;
inline constexpr size_t kBlockHeaderWords = 10;
inline constexpr size_t kBlockHeaderBytes = 40;
inline constexpr size_t kWriteIndexBytes = 4;
inline constexpr size_t kRecordBytes = 8;
inline constexpr size_t kWordBytes = 4;
inline constexpr uint32_t kMaxScopes = 256;
inline constexpr int kClockBits = 43;
inline constexpr uint64_t kClockModulus = uint64_t{1} << kClockBits;
// Triton aligns each CTA's block to this many bytes.
inline constexpr size_t kBlockAlignment = 128;

// Byte offsets of the header's fields in a block; the times are two words each, low word first.
inline constexpr size_t kPreambleOffset = 0;
inline constexpr size_t kBlockIdOffset = 4;
inline constexpr size_t kSmIdOffset = 8;
inline constexpr size_t kDataBytesOffset = 12;
inline constexpr size_t kInitTimeOffset = 16;
inline constexpr size_t kPreFinalizeTimeOffset = 24;
inline constexpr size_t kPostFinalizeTimeOffset = 32;
static_assert(kPostFinalizeTimeOffset + 8 == kBlockHeaderBytes);
static_assert(kBlockHeaderWords * kWordBytes == kBlockHeaderBytes);
static_assert(kRecordBytes == 2 * kWordBytes && kWriteIndexBytes == kWordBytes);

// Bytes before a block's data: the header and one write index per warp of the CTA.
constexpr size_t IndexedHeaderBytes(size_t num_warps) {
  return kBlockHeaderBytes + kWriteIndexBytes * num_warps;
}

// One CTA's block: the indexed header and `data_bytes`, rounded up to kBlockAlignment.
constexpr size_t BlockBytes(size_t data_bytes, size_t num_warps) {
  const size_t bytes = IndexedHeaderBytes(num_warps) + data_bytes;
  return (bytes + kBlockAlignment - 1) / kBlockAlignment * kBlockAlignment;
}
static_assert(BlockBytes(8192, 4) == 8320, "8192 + 56 rounds up to 65 * 128");

inline constexpr uint32_t kEndFlag = 1u << 31;
inline constexpr int kScopeIdShift = 23;
inline constexpr uint32_t kScopeIdMask = 0xFFu << kScopeIdShift;
inline constexpr uint32_t kAsyncFlag = 1u << 22;
inline constexpr uint32_t kClockHighMask = 0x7FFu;
inline constexpr int kClockLowBits = 32;  // word 1
static_assert(kClockBits == kClockLowBits + 11 && kClockHighMask == (1u << 11) - 1);
static_assert((kScopeIdMask >> kScopeIdShift) + 1 == kMaxScopes);

// One record, decoded (any 8 bytes decode to one: there is nothing to validate).
struct Record {
  bool is_end;
  bool is_async;
  uint32_t scope_id;
  uint64_t clock;  // 43 bits
};

inline uint32_t LoadU32(const uint8_t* p) {
  uint32_t value;
  std::memcpy(&value, p, sizeof(value));
  return value;  // The project builds for little-endian hosts only.
}

inline uint64_t LoadU64(const uint8_t* p) {
  return uint64_t{LoadU32(p)} | uint64_t{LoadU32(p + 4)} << 32;
}

inline Record DecodeRecord(const uint8_t* p) {
  const uint32_t tag = LoadU32(p);
  return Record{.is_end = (tag & kEndFlag) != 0,
                .is_async = (tag & kAsyncFlag) != 0,
                .scope_id = (tag & kScopeIdMask) >> kScopeIdShift,
                .clock = uint64_t{tag & kClockHighMask} << kClockLowBits | LoadU32(p + 4)};
}

// Word 0 of a record without its clock bits: what the lowering knows before the kernel runs.
constexpr uint32_t RecordTag(bool is_end, uint32_t scope_id, bool is_async) {
  return (is_end ? kEndFlag : 0) | (is_async ? kAsyncFlag : 0) |
         (scope_id << kScopeIdShift & kScopeIdMask);
}

inline void EncodeRecord(const Record& record, uint8_t* p) {
  const uint32_t tag = RecordTag(record.is_end, record.scope_id, record.is_async) |
                       static_cast<uint32_t>(record.clock >> kClockLowBits & kClockHighMask);
  const uint32_t low = static_cast<uint32_t>(record.clock);
  std::memcpy(p, &tag, sizeof(tag));
  std::memcpy(p + 4, &low, sizeof(low));
}

}  // namespace protond::instrumentation

#endif  // PROTOND_MLIR_INSTRUMENT_BUFFER_BUFFER_LAYOUT_H_
