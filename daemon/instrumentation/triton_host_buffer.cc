#include "daemon/instrumentation/triton_host_buffer.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "mlir-instrument/buffer/buffer_layout.h"

namespace protond::instrumentation {
namespace {

// The header's fields, in order, as u32 words.
enum HeaderWord : size_t {
  kVersion,
  kHeaderOffset,
  kHeaderSize,
  kPayloadOffset,
  kPayloadSize,
  kDeviceType,
  kBlockNum,
  kTotalUnit,
  kScratchMemSize,
  kUidNum,
  kHeaderWords,
};
static_assert(kHeaderWords * kWordBytes == kTritonHostHeaderBytes);

absl::Status HeaderError(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("Triton host buffer: ", what));
}

// Proton's per-record cost for its time shift (getTimeShiftCost in CircularLayoutParser.cpp).
uint32_t RecordCostCycles(uint32_t device_type) {
  if (device_type == kTritonDeviceCuda) return 7;
  if (device_type == kTritonDeviceHip) return 36;
  return 0;
}

}  // namespace

absl::StatusOr<TritonHostBuffer> ParseTritonHostBuffer(std::span<const uint8_t> host_buffer) {
  if (host_buffer.size() < kTritonHostHeaderBytes) {
    return HeaderError(absl::StrCat(host_buffer.size(), " bytes is shorter than its ",
                                    kTritonHostHeaderBytes, "-byte header"));
  }
  uint32_t word[kHeaderWords];
  for (size_t i = 0; i < kHeaderWords; ++i) word[i] = LoadU32(host_buffer.data() + i * kWordBytes);
  if (word[kVersion] != kTritonHostBufferVersion) {
    return HeaderError(absl::StrCat("version ", word[kVersion], ", only version ",
                                    kTritonHostBufferVersion, " (Triton 3.6) is known"));
  }
  if (word[kHeaderOffset] != kWordBytes) {
    return HeaderError(absl::StrCat("header offset ", word[kHeaderOffset], " is not 4"));
  }
  const uint64_t header_bytes = kTritonHostHeaderBytes + uint64_t{kWordBytes} * word[kUidNum];
  if (word[kHeaderSize] != header_bytes || word[kPayloadOffset] != header_bytes) {
    return HeaderError(absl::StrCat("header size ", word[kHeaderSize], " and payload offset ",
                                    word[kPayloadOffset], " should both be ", header_bytes, " for ",
                                    word[kUidNum], " warp ids"));
  }
  const uint64_t end = uint64_t{word[kPayloadOffset]} + word[kPayloadSize];
  if (end > host_buffer.size()) {
    return HeaderError(absl::StrCat("a ", word[kPayloadSize], "-byte payload at offset ",
                                    word[kPayloadOffset], " runs past the buffer's ",
                                    host_buffer.size(), " bytes (truncated)"));
  }
  if (uint64_t{word[kBlockNum]} * word[kScratchMemSize] != word[kPayloadSize]) {
    return HeaderError(absl::StrCat(word[kBlockNum], " blocks of ", word[kScratchMemSize],
                                    " bytes do not make the payload's ", word[kPayloadSize],
                                    " bytes"));
  }
  TritonHostBuffer parsed;
  parsed.device_type = word[kDeviceType];
  parsed.layout.block_bytes = word[kScratchMemSize];
  parsed.layout.num_warps = word[kTotalUnit];
  parsed.layout.record_cost_cycles = RecordCostCycles(word[kDeviceType]);
  for (uint32_t i = 0; i < word[kUidNum]; ++i) {
    parsed.layout.profiled_warps.push_back(
        LoadU32(host_buffer.data() + kTritonHostHeaderBytes + i * kWordBytes));
  }
  parsed.device_buffer = host_buffer.subspan(word[kPayloadOffset], word[kPayloadSize]);
  return parsed;
}

absl::StatusOr<DecodedBuffer> DecodeTritonHostBuffer(std::span<const uint8_t> host_buffer,
                                                     std::vector<std::string> scope_names) {
  ASSIGN_OR_RETURN(TritonHostBuffer parsed, ParseTritonHostBuffer(host_buffer));
  parsed.layout.scope_names = std::move(scope_names);
  return DecodeCircularBuffer(parsed.device_buffer, parsed.layout);
}

}  // namespace protond::instrumentation
