// The content of a BlobClass::kCubin blob (record_format.h): written by the shim from the cubin
// CUPTI handed it at module load, read by the daemon from untrusted bytes.
#ifndef PROTOND_COMMON_RECORD_CUBIN_BLOB_H_
#define PROTOND_COMMON_RECORD_CUBIN_BLOB_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace protond::record {

struct CubinBlob {
  uint64_t crc;
  std::string_view cubin;  // points into the blob
};

// The blob of `cubin`; InvalidArgumentError when `crc` is 0, the cubin is empty, or the blob would
// be over kMaxBlobBytes.
absl::StatusOr<std::string> EncodeCubinBlob(uint64_t crc, std::span<const uint8_t> cubin);

// The parts of `blob_untrusted`, with the same checks, and that the cubin starts as an ELF file
// does: anything else is no cubin that nvdisasm could read.
absl::StatusOr<CubinBlob> ParseCubinBlob(std::string_view blob_untrusted);

}  // namespace protond::record

#endif  // PROTOND_COMMON_RECORD_CUBIN_BLOB_H_
