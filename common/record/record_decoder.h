// Decodes records from a private copy of lane bytes. The bytes are untrusted (they come from a
// profiled process's shared memory): every size and field is checked, and a malformed record is
// reported with what was wrong instead of being trusted. Thread-compatible; no allocation.
#ifndef PROTOND_COMMON_RECORD_RECORD_DECODER_H_
#define PROTOND_COMMON_RECORD_RECORD_DECODER_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/record/record_format.h"

namespace protond::record {

// One validated record. `name` points into the decoded span and lives as long as it does.
struct Record {
  Kind kind;
  uint8_t flags;
  uint32_t size_bytes;
  uint32_t aux;         // context id, name id or thread id, as the kind says
  uint32_t ref_id = 0;  // kContextDef: parent context id; kMetric, kVectorMetric: name id
  // A timestamp (ns, or TSC ticks with kTimestampTsc), a session id, the metric's value bits, or
  // kClockSync's TSC value.
  uint64_t value = 0;
  uint64_t monotonic_ns = 0;  // kClockSync
  // kContextDef, kNameDef, kDeviceInfo; kNotice: its text; kBlobChunk: the chunk's bytes
  std::string_view name;
  GpuActivityRecord activity{};  // kKernel, kMemcpy, kMemset
  DeviceInfoRecord device{};     // kDeviceInfo (aux is the device ordinal)
  PcSampleRecord pc_sample{};    // kPcSample
  BlobChunkRecord blob{};        // kBlobChunk (aux is the blob id)
  // kCollective: its times are in `collective.start` and `.end` (the clock as flags say); each
  // text field holds printable ASCII, zero-terminated within the field.
  CollectiveRecord collective{};
  // kVectorMetric: its elements, count x 8 bytes of int64 or double (flags), unaligned
  std::span<const uint8_t> elements;
  bool unknown_kind = false;  // a kind newer than this decoder: skip it, count it
};

// Decodes the record at the start of `bytes_untrusted`. Errors (InvalidArgument, naming the
// field) mean the lane cannot be parsed further: its framing is lost.
absl::StatusOr<Record> DecodeRecord(std::span<const uint8_t> bytes_untrusted);

}  // namespace protond::record

#endif  // PROTOND_COMMON_RECORD_RECORD_DECODER_H_
