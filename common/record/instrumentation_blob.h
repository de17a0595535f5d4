// The content of a BlobClass::kInstrumentationBuffer blob (record_format.h): written by the shim
// from what the program hands it, read by the daemon from untrusted bytes.
#ifndef PROTOND_COMMON_RECORD_INSTRUMENTATION_BLOB_H_
#define PROTOND_COMMON_RECORD_INSTRUMENTATION_BLOB_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/record/record_format.h"

namespace protond::record {

// At most this many scopes: the circular layout gives a scope id 8 bits.
inline constexpr uint32_t kMaxInstrumentationScopes = 256;

struct InstrumentationBlob {
  InstrumentationBufferHeader header;
  std::vector<uint32_t> profiled_warps;       // empty: every warp records
  std::vector<std::string_view> scope_names;  // by scope id; point into the blob
  std::span<const uint8_t> buffer;            // a whole number of blocks
};

// The checks EncodeInstrumentationBlob makes, without copying anything.
absl::Status CheckInstrumentationBuffer(const InstrumentationBufferHeader& header,
                                        std::span<const uint32_t> profiled_warps,
                                        std::span<const std::string_view> scope_names,
                                        size_t buffer_bytes);

// The blob of `buffer` (header.num_scopes, scope_names_bytes and num_profiled_warps are filled in
// here); `profiled_warps` empty means every warp records. InvalidArgumentError, naming what is
// wrong, for unknown flags, an empty or over-long scope name, too many scopes, a zero block size or
// warp count, profiled warps out of order or not below the warp count, a buffer that is empty or
// not a whole number of blocks, or a blob over kMaxBlobBytes.
absl::StatusOr<std::string> EncodeInstrumentationBlob(InstrumentationBufferHeader header,
                                                      std::span<const uint32_t> profiled_warps,
                                                      std::span<const std::string_view> scope_names,
                                                      std::span<const uint8_t> buffer);

// The parts of `blob_untrusted`; the same checks as EncodeInstrumentationBlob, plus the layout
// and that every size fits the blob.
absl::StatusOr<InstrumentationBlob> ParseInstrumentationBlob(std::string_view blob_untrusted);

}  // namespace protond::record

#endif  // PROTOND_COMMON_RECORD_INSTRUMENTATION_BLOB_H_
