#include "common/record/instrumentation_blob.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace protond::record {
namespace {

absl::Status CheckProfiledWarps(const InstrumentationBufferHeader& header,
                                std::span<const uint32_t> profiled_warps) {
  for (size_t i = 0; i < profiled_warps.size(); ++i) {
    if (profiled_warps[i] >= header.num_warps ||
        (i > 0 && profiled_warps[i] <= profiled_warps[i - 1])) {
      return absl::InvalidArgumentError(
          absl::StrCat("instrumentation buffer: profiled warp ", profiled_warps[i],
                       " is out of order or not below the CTA's ", header.num_warps, " warps"));
    }
  }
  return absl::OkStatus();
}

// The checks both sides make on the fields a program gives.
absl::Status CheckShape(const InstrumentationBufferHeader& header,
                        std::span<const uint32_t> profiled_warps, size_t num_scopes,
                        size_t buffer_bytes) {
  if ((header.flags & ~kKnownInstrumentationFlags) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("instrumentation buffer has unknown flags 0x", absl::Hex(header.flags)));
  }
  if (num_scopes > kMaxInstrumentationScopes) {
    return absl::InvalidArgumentError(absl::StrCat("instrumentation buffer names ", num_scopes,
                                                   " scopes; the record encoding allows ",
                                                   kMaxInstrumentationScopes));
  }
  if (header.layout == static_cast<uint32_t>(InstrumentationLayout::kTritonHostBuffer)) {
    // Its own header gives the block size and warps; the decoder checks them.
    if (!profiled_warps.empty()) {
      return absl::InvalidArgumentError("Triton host buffer: its own header names its warps");
    }
    if (buffer_bytes != 0) return absl::OkStatus();
    return absl::InvalidArgumentError("Triton host buffer is empty");
  }
  if (header.layout != static_cast<uint32_t>(InstrumentationLayout::kCircular)) {
    return absl::InvalidArgumentError(
        absl::StrCat("instrumentation buffer has layout ", header.layout));
  }
  if (header.block_bytes == 0 || header.num_warps == 0) {
    return absl::InvalidArgumentError(absl::StrCat("instrumentation buffer has block size ",
                                                   header.block_bytes, " and ", header.num_warps,
                                                   " warps; neither may be 0"));
  }
  if (absl::Status warps = CheckProfiledWarps(header, profiled_warps); !warps.ok()) return warps;
  if (buffer_bytes == 0 || buffer_bytes % header.block_bytes != 0) {
    return absl::InvalidArgumentError(absl::StrCat("instrumentation buffer of ", buffer_bytes,
                                                   " bytes is not a whole number of ",
                                                   header.block_bytes, "-byte blocks"));
  }
  return absl::OkStatus();
}

// The blob's bytes before the buffer: header, warp ids, names, zeros to a multiple of 8.
size_t PrefixBytes(std::span<const uint32_t> profiled_warps,
                   std::span<const std::string_view> scope_names) {
  size_t names_bytes = 0;
  for (const std::string_view name : scope_names) names_bytes += name.size() + 1;
  return AlignUp(sizeof(InstrumentationBufferHeader) + profiled_warps.size() * sizeof(uint32_t) +
                 names_bytes);
}

}  // namespace

absl::Status CheckInstrumentationBuffer(const InstrumentationBufferHeader& header,
                                        std::span<const uint32_t> profiled_warps,
                                        std::span<const std::string_view> scope_names,
                                        size_t buffer_bytes) {
  if (absl::Status shape = CheckShape(header, profiled_warps, scope_names.size(), buffer_bytes);
      !shape.ok()) {
    return shape;
  }
  for (size_t id = 0; id < scope_names.size(); ++id) {
    const std::string_view name = scope_names[id];
    if (name.empty() || name.size() > kMaxNameBytes || name.find('\0') != std::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("instrumentation scope ", id, " has a name of ", name.size(),
                       " bytes; it must have 1 to ", kMaxNameBytes, " bytes and no zero byte"));
    }
  }
  if (PrefixBytes(profiled_warps, scope_names) + buffer_bytes > kMaxBlobBytes) {
    return absl::InvalidArgumentError(absl::StrCat("instrumentation buffer of ", buffer_bytes,
                                                   " bytes is over the limit of ", kMaxBlobBytes));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeInstrumentationBlob(InstrumentationBufferHeader header,
                                                      std::span<const uint32_t> profiled_warps,
                                                      std::span<const std::string_view> scope_names,
                                                      std::span<const uint8_t> buffer) {
  if (absl::Status checked =
          CheckInstrumentationBuffer(header, profiled_warps, scope_names, buffer.size());
      !checked.ok()) {
    return checked;
  }
  std::string names;
  for (const std::string_view name : scope_names) {
    names.append(name.data(), name.size());
    names.push_back('\0');
  }
  header.num_scopes = static_cast<uint32_t>(scope_names.size());
  header.scope_names_bytes = static_cast<uint32_t>(names.size());
  header.num_profiled_warps = static_cast<uint32_t>(profiled_warps.size());
  header.reserved = 0;
  const size_t warps_bytes = profiled_warps.size() * sizeof(uint32_t);
  const size_t prefix = PrefixBytes(profiled_warps, scope_names);
  std::string blob(prefix + buffer.size(), '\0');
  std::memcpy(blob.data(), &header, sizeof(header));
  // An empty span may have no data pointer, which memcpy must not get even for 0 bytes.
  if (warps_bytes != 0) {
    std::memcpy(blob.data() + sizeof(header), profiled_warps.data(), warps_bytes);
  }
  std::memcpy(blob.data() + sizeof(header) + warps_bytes, names.data(), names.size());
  std::memcpy(blob.data() + prefix, buffer.data(), buffer.size());
  return blob;
}

absl::StatusOr<InstrumentationBlob> ParseInstrumentationBlob(std::string_view blob_untrusted) {
  InstrumentationBlob blob;
  if (blob_untrusted.size() < sizeof(blob.header)) {
    return absl::InvalidArgumentError(
        absl::StrCat("instrumentation blob of ", blob_untrusted.size(), " bytes has no header"));
  }
  std::memcpy(&blob.header, blob_untrusted.data(), sizeof(blob.header));
  const InstrumentationBufferHeader& header = blob.header;
  // 64-bit sums: the counts are untrusted u32s.
  const uint64_t warps_bytes = uint64_t{header.num_profiled_warps} * sizeof(uint32_t);
  const uint64_t names_at = sizeof(header) + warps_bytes;
  const uint64_t prefix = AlignUp(names_at + header.scope_names_bytes);
  if (prefix > blob_untrusted.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("instrumentation blob of ", blob_untrusted.size(), " bytes is too short for ",
                     header.num_profiled_warps, " warp ids and ", header.scope_names_bytes,
                     " bytes of scope names"));
  }
  blob.profiled_warps.resize(header.num_profiled_warps);
  if (warps_bytes != 0) {
    std::memcpy(blob.profiled_warps.data(), blob_untrusted.data() + sizeof(header), warps_bytes);
  }
  std::string_view names = blob_untrusted.substr(names_at, header.scope_names_bytes);
  while (!names.empty()) {
    const size_t end = names.find('\0');
    if (end == std::string_view::npos || end == 0 || end > kMaxNameBytes) break;
    blob.scope_names.push_back(names.substr(0, end));
    names.remove_prefix(end + 1);
  }
  if (!names.empty() || blob.scope_names.size() != header.num_scopes) {
    return absl::InvalidArgumentError(
        absl::StrCat("instrumentation scope names do not make ", header.num_scopes, " names"));
  }
  const std::string_view buffer = blob_untrusted.substr(prefix);
  blob.buffer = {reinterpret_cast<const uint8_t*>(buffer.data()), buffer.size()};
  if (absl::Status shape =
          CheckShape(header, blob.profiled_warps, header.num_scopes, buffer.size());
      !shape.ok()) {
    return shape;
  }
  return blob;
}

}  // namespace protond::record
