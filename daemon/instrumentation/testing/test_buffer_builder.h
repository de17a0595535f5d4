// Test-only: writes synthetic device buffers the way an instrumented kernel does (a header per
// CTA block, a write index per warp, each record at its ring position), so tests state their
// scenario as records and check the decoder's output against exact values.
#ifndef PROTOND_DAEMON_INSTRUMENTATION_TESTING_TEST_BUFFER_BUILDER_H_
#define PROTOND_DAEMON_INSTRUMENTATION_TESTING_TEST_BUFFER_BUILDER_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "daemon/instrumentation/circular_buffer.h"
#include "mlir-instrument/buffer/buffer_layout.h"

namespace protond::instrumentation::internal {

class TestBufferBuilder {
 public:
  // Every block starts profiled: preamble, linear id = block, SM id = 100 + block, init time
  // 1000 * (block + 1) ns, pre-finalize +500, post-finalize +600, and `data_bytes` as capacity.
  TestBufferBuilder(uint32_t num_blocks, uint32_t num_warps, uint32_t data_bytes,
                    std::vector<uint32_t> profiled_warps = {})
      : num_warps_(num_warps), data_bytes_(data_bytes), profiled_warps_(std::move(profiled_warps)) {
    block_bytes_ = BlockBytes(data_bytes, num_warps);
    bytes_.assign(size_t{num_blocks} * block_bytes_, 0);
    for (uint32_t block = 0; block < num_blocks; ++block) {
      Put32(block, kPreambleOffset, kProfiledPreamble);
      Put32(block, kBlockIdOffset, block);
      Put32(block, kSmIdOffset, 100 + block);
      Put32(block, kDataBytesOffset, data_bytes);
      Put64(block, kInitTimeOffset, 1000 * (block + 1));
      Put64(block, kPreFinalizeTimeOffset, 1000 * (block + 1) + 500);
      Put64(block, kPostFinalizeTimeOffset, 1000 * (block + 1) + 600);
    }
  }

  BufferLayout Layout(std::vector<std::string> scope_names = {"outer", "inner"}) const {
    return BufferLayout{.block_bytes = block_bytes_,
                        .num_warps = num_warps_,
                        .data_bytes = data_bytes_,
                        .profiled_warps = profiled_warps_,
                        .scope_names = std::move(scope_names)};
  }

  void Start(uint32_t block, uint32_t warp, uint32_t scope, uint64_t clock, bool async = false) {
    Append(block, warp,
           Record{.is_end = false, .is_async = async, .scope_id = scope, .clock = clock});
  }
  void End(uint32_t block, uint32_t warp, uint32_t scope, uint64_t clock) {
    Append(block, warp,
           Record{.is_end = true, .is_async = false, .scope_id = scope, .clock = clock});
  }

  // Overwrites one u32 of a block, at a byte offset from the block's start.
  void Put32(uint32_t block, size_t offset, uint32_t value) {
    std::memcpy(&bytes_[size_t{block} * block_bytes_ + offset], &value, sizeof(value));
  }
  void Put64(uint32_t block, size_t offset, uint64_t value) {
    Put32(block, offset, static_cast<uint32_t>(value));
    Put32(block, offset + 4, static_cast<uint32_t>(value >> 32));
  }
  static size_t WriteIndexOffset(uint32_t warp) {
    return kBlockHeaderBytes + kWriteIndexBytes * warp;
  }

  uint32_t block_bytes() const { return block_bytes_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  uint32_t RingSlot(uint32_t warp) const {
    if (profiled_warps_.empty()) return warp;
    for (uint32_t i = 0; i < profiled_warps_.size(); ++i) {
      if (profiled_warps_[i] == warp) return i;
    }
    return UINT32_MAX;
  }

  void Append(uint32_t block, uint32_t warp, const Record& record) {
    const size_t warps = profiled_warps_.empty() ? num_warps_ : profiled_warps_.size();
    const size_t ring_bytes = data_bytes_ / kWordBytes / warps * kWordBytes;
    const size_t index_offset = WriteIndexOffset(warp);
    uint32_t index;
    std::memcpy(&index, &bytes_[size_t{block} * block_bytes_ + index_offset], sizeof(index));
    const size_t position = index * kWordBytes % ring_bytes;  // as the device: index mod ring
    const size_t offset = IndexedHeaderBytes(num_warps_) + RingSlot(warp) * ring_bytes + position;
    EncodeRecord(record, &bytes_[size_t{block} * block_bytes_ + offset]);
    Put32(block, index_offset, index + kRecordBytes / kWordBytes);
  }

  uint32_t num_warps_;
  uint32_t data_bytes_;
  std::vector<uint32_t> profiled_warps_;
  uint32_t block_bytes_ = 0;
  std::vector<uint8_t> bytes_;
};

}  // namespace protond::instrumentation::internal

#endif  // PROTOND_DAEMON_INSTRUMENTATION_TESTING_TEST_BUFFER_BUILDER_H_
