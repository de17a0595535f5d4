#include "common/record/cubin_blob.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/record/record_format.h"

namespace protond::record {
namespace {

constexpr std::string_view kElfMagic =
    "\x7f"
    "ELF";

absl::Status CheckCubin(uint64_t crc, size_t cubin_bytes) {
  if (crc == 0) return absl::InvalidArgumentError("cubin blob has CRC 0");
  if (cubin_bytes == 0) return absl::InvalidArgumentError("cubin blob has no cubin");
  if (cubin_bytes > kMaxBlobBytes - sizeof(CubinBlobHeader)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cubin of ", cubin_bytes, " bytes is over the blob limit of ", kMaxBlobBytes, " bytes"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> EncodeCubinBlob(uint64_t crc, std::span<const uint8_t> cubin) {
  if (absl::Status checked = CheckCubin(crc, cubin.size()); !checked.ok()) return checked;
  const CubinBlobHeader header{crc};
  std::string blob(reinterpret_cast<const char*>(&header), sizeof(header));
  blob.append(reinterpret_cast<const char*>(cubin.data()), cubin.size());
  return blob;
}

absl::StatusOr<CubinBlob> ParseCubinBlob(std::string_view blob_untrusted) {
  if (blob_untrusted.size() < sizeof(CubinBlobHeader)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cubin blob of ", blob_untrusted.size(), " bytes has no header"));
  }
  CubinBlobHeader header;
  std::memcpy(&header, blob_untrusted.data(), sizeof(header));
  const std::string_view cubin = blob_untrusted.substr(sizeof(header));
  if (absl::Status checked = CheckCubin(header.crc, cubin.size()); !checked.ok()) return checked;
  if (!cubin.starts_with(kElfMagic)) {
    return absl::InvalidArgumentError("cubin blob does not hold an ELF file");
  }
  return CubinBlob{header.crc, cubin};
}

}  // namespace protond::record
