#include "common/record/record_decoder.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace protond::record {
namespace {

template <typename T>
T Load(std::span<const uint8_t> bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

absl::Status WrongSize(const Record& r, size_t expected) {
  return absl::InvalidArgumentError(absl::StrCat("record kind ", static_cast<int>(r.kind),
                                                 " has size ", r.size_bytes, ", expected ",
                                                 expected));
}

absl::Status DecodeNamed(std::span<const uint8_t> bytes, Record& r) {
  if (r.size_bytes < sizeof(NamedRecordPrefix)) return WrongSize(r, sizeof(NamedRecordPrefix));
  const uint32_t first = Load<uint32_t>(bytes, 8);
  const uint32_t second = Load<uint32_t>(bytes, 12);
  const uint32_t name_bytes = r.kind == Kind::kContextDef ? second : first;
  if (name_bytes > kMaxNameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("name of ", name_bytes, " bytes exceeds the limit of ", kMaxNameBytes));
  }
  if (NamedRecordBytes(name_bytes) != r.size_bytes) {
    return WrongSize(r, NamedRecordBytes(name_bytes));
  }
  if (r.kind == Kind::kContextDef) {
    if (r.aux == kRootContextId) {
      return absl::InvalidArgumentError("context definition redefines ROOT (id 0)");
    }
    r.ref_id = first;
  } else if (r.kind == Kind::kNameDef &&
             (r.flags < static_cast<uint8_t>(NameClass::kInt64Metric) || r.flags > kMaxNameClass)) {
    return absl::InvalidArgumentError(absl::StrCat("name definition has class ", r.flags));
  }
  r.name = std::string_view(reinterpret_cast<const char*>(bytes.data()) + sizeof(NamedRecordPrefix),
                            name_bytes);
  return absl::OkStatus();
}

absl::Status DecodeMetric(std::span<const uint8_t> bytes, Record& r) {
  if (r.size_bytes != sizeof(MetricRecord)) return WrongSize(r, sizeof(MetricRecord));
  if (r.flags != static_cast<uint8_t>(NameClass::kInt64Metric) &&
      r.flags != static_cast<uint8_t>(NameClass::kDoubleMetric)) {
    return absl::InvalidArgumentError(absl::StrCat("metric has value type ", r.flags));
  }
  r.ref_id = Load<uint32_t>(bytes, 8);
  r.value = Load<uint64_t>(bytes, 16);
  return absl::OkStatus();
}

absl::Status DecodeVectorMetric(std::span<const uint8_t> bytes, Record& r) {
  if (r.size_bytes < sizeof(VectorMetricPrefix)) return WrongSize(r, sizeof(VectorMetricPrefix));
  if (r.flags != static_cast<uint8_t>(NameClass::kInt64VectorMetric) &&
      r.flags != static_cast<uint8_t>(NameClass::kDoubleVectorMetric)) {
    return absl::InvalidArgumentError(absl::StrCat("vector metric has value type ", r.flags));
  }
  r.ref_id = Load<uint32_t>(bytes, 8);
  const uint32_t count = Load<uint32_t>(bytes, 12);
  if (count == 0 || count > kMaxVectorMetricElements) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vector metric of ", count, " elements; it needs 1 to ", kMaxVectorMetricElements));
  }
  if (VectorMetricRecordBytes(count) != r.size_bytes) {
    return WrongSize(r, VectorMetricRecordBytes(count));
  }
  r.elements = bytes.subspan(sizeof(VectorMetricPrefix), count * sizeof(uint64_t));
  return absl::OkStatus();
}

absl::Status DecodeGpuActivity(std::span<const uint8_t> bytes, Record& r) {
  if (r.size_bytes != sizeof(GpuActivityRecord)) return WrongSize(r, sizeof(GpuActivityRecord));
  r.activity = Load<GpuActivityRecord>(bytes, 0);
  if (r.kind == Kind::kMemcpy ? r.flags > kMaxCopyKind : r.flags != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GPU activity record kind ", static_cast<int>(r.kind), " has flags ", r.flags));
  }
  if ((r.kind == Kind::kKernel) != (r.activity.name_id != 0)) {
    return absl::InvalidArgumentError(absl::StrCat("GPU activity record kind ",
                                                   static_cast<int>(r.kind), " has name id ",
                                                   r.activity.name_id));
  }
  return absl::OkStatus();
}

absl::Status DecodeDeviceInfo(std::span<const uint8_t> bytes, Record& r) {
  if (r.size_bytes < sizeof(DeviceInfoRecord)) return WrongSize(r, sizeof(DeviceInfoRecord));
  if (r.flags != 0) {
    return absl::InvalidArgumentError(absl::StrCat("device info record has flags ", r.flags));
  }
  r.device = Load<DeviceInfoRecord>(bytes, 0);
  const uint32_t name_bytes = r.device.name_bytes;
  if (name_bytes > kMaxNameBytes) {
    return absl::InvalidArgumentError(absl::StrCat("device info name_bytes ", name_bytes,
                                                   " exceeds the limit of ", kMaxNameBytes));
  }
  if (DeviceInfoRecordBytes(name_bytes) != r.size_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("device info record has size ", r.size_bytes,
                                                   " but name_bytes ", name_bytes, " needs ",
                                                   DeviceInfoRecordBytes(name_bytes)));
  }
  r.name = std::string_view(reinterpret_cast<const char*>(bytes.data()) + sizeof(DeviceInfoRecord),
                            name_bytes);
  return absl::OkStatus();
}

absl::Status DecodePcSample(std::span<const uint8_t> bytes, Record& r) {
  if (r.size_bytes != sizeof(PcSampleRecord)) return WrongSize(r, sizeof(PcSampleRecord));
  if (r.flags != 0) {
    return absl::InvalidArgumentError(absl::StrCat("PC sample record has flags ", r.flags));
  }
  r.pc_sample = Load<PcSampleRecord>(bytes, 0);
  const PcSampleRecord& s = r.pc_sample;
  if (s.kernel_name_id == 0 || s.line_name_id == 0 || s.reason_name_id == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("PC sample record names kernel ", s.kernel_name_id, ", line ", s.line_name_id,
                     " and reason ", s.reason_name_id, "; none may be 0"));
  }
  return absl::OkStatus();
}

absl::Status DecodeBlobChunk(std::span<const uint8_t> bytes, Record& r) {
  if (r.size_bytes < sizeof(BlobChunkRecord)) return WrongSize(r, sizeof(BlobChunkRecord));
  if (r.flags != 0 || r.aux == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("blob chunk record has flags ", r.flags, " and blob id ", r.aux));
  }
  r.blob = Load<BlobChunkRecord>(bytes, 0);
  const BlobChunkRecord& b = r.blob;
  if (b.blob_class == 0 || b.blob_class > kMaxBlobClass) {
    return absl::InvalidArgumentError(absl::StrCat("blob chunk has class ", b.blob_class));
  }
  if (b.chunk_bytes > kMaxBlobChunkBytes || BlobChunkRecordBytes(b.chunk_bytes) != r.size_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("blob chunk of ", b.chunk_bytes, " bytes in a record of ", r.size_bytes));
  }
  if (b.total_bytes > kMaxBlobBytes || b.offset > b.total_bytes ||
      b.chunk_bytes > b.total_bytes - b.offset) {
    return absl::InvalidArgumentError(
        absl::StrCat("blob chunk at ", b.offset, " of ", b.chunk_bytes, " bytes in a blob of ",
                     b.total_bytes, " (at most ", kMaxBlobBytes, ")"));
  }
  r.name = std::string_view(reinterpret_cast<const char*>(bytes.data()) + sizeof(BlobChunkRecord),
                            b.chunk_bytes);
  return absl::OkStatus();
}

// A CollectiveRecord text field: printable ASCII up to its first zero, which must come within the
// field, and zeros after it.
absl::Status CheckCollectiveText(const char (&field)[kCollectiveTextBytes], const char* what) {
  const std::string_view text(field, kCollectiveTextBytes);
  const size_t end = text.find('\0');
  if (end == std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("collective record's ", what, " has no terminating zero byte"));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (i < end ? (c < 0x20 || c > 0x7e) : c != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("collective record's ", what, " has byte ", static_cast<int>(c), " at ", i));
    }
  }
  return absl::OkStatus();
}

// A format-10 record lacks the last 8 bytes: it is read as one whose kernel is not known.
absl::Status DecodeCollective(std::span<const uint8_t> bytes, Record& r) {
  if (r.size_bytes != sizeof(CollectiveRecord) && r.size_bytes != kCollectiveRecordV10Bytes) {
    return WrongSize(r, sizeof(CollectiveRecord));
  }
  if ((r.flags & ~kTimestampTsc) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("collective record has flags ", r.flags));
  }
  r.collective = CollectiveRecord{};
  std::memcpy(&r.collective, bytes.data(), r.size_bytes);
  const CollectiveRecord& c = r.collective;
  if ((c.collective_flags & ~kCollectiveLaunchKnown) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("collective record has collective flags ", c.collective_flags));
  }
  if ((c.collective_flags & kCollectiveLaunchKnown) == 0 && c.launch_correlation_id != 0) {
    return absl::InvalidArgumentError(absl::StrCat("collective record has launch correlation id ",
                                                   c.launch_correlation_id, " without its flag"));
  }
  RETURN_IF_ERROR(CheckCollectiveText(c.op, "op"));
  RETURN_IF_ERROR(CheckCollectiveText(c.datatype, "datatype"));
  RETURN_IF_ERROR(CheckCollectiveText(c.algorithm, "algorithm"));
  return CheckCollectiveText(c.protocol, "protocol");
}

absl::Status DecodeBody(std::span<const uint8_t> bytes, Record& r) {
  switch (r.kind) {
    case Kind::kThreadBegin:
      return r.size_bytes == kHeaderBytes ? absl::OkStatus() : WrongSize(r, kHeaderBytes);
    case Kind::kScopeEnter:
    case Kind::kScopeExit:
    case Kind::kStateEnter:
    case Kind::kStateExit:
      if ((r.flags & ~kTimestampTsc) != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("timed record kind ", static_cast<int>(r.kind), " has flags ", r.flags));
      }
      [[fallthrough]];
    case Kind::kSessionBegin:
      if (r.size_bytes != sizeof(TimedRecord)) return WrongSize(r, sizeof(TimedRecord));
      r.value = Load<uint64_t>(bytes, 8);
      return absl::OkStatus();
    case Kind::kClockSync:
      if (r.size_bytes != sizeof(ClockSyncRecord)) return WrongSize(r, sizeof(ClockSyncRecord));
      if (r.flags != 0 || r.aux != 0) {
        return absl::InvalidArgumentError(absl::StrCat("clock sync record has flags ", r.flags,
                                                       " and aux ", r.aux, "; both must be 0"));
      }
      r.value = Load<uint64_t>(bytes, 8);
      r.monotonic_ns = Load<uint64_t>(bytes, 16);
      return absl::OkStatus();
    case Kind::kContextDef:
    case Kind::kNameDef:
    case Kind::kNotice:
      return DecodeNamed(bytes, r);
    case Kind::kMetric:
      return DecodeMetric(bytes, r);
    case Kind::kVectorMetric:
      return DecodeVectorMetric(bytes, r);
    case Kind::kKernel:
    case Kind::kMemcpy:
    case Kind::kMemset:
      return DecodeGpuActivity(bytes, r);
    case Kind::kDeviceInfo:
      return DecodeDeviceInfo(bytes, r);
    case Kind::kPcSample:
      return DecodePcSample(bytes, r);
    case Kind::kBlobChunk:
      return DecodeBlobChunk(bytes, r);
    case Kind::kCollective:
      return DecodeCollective(bytes, r);
  }
  return absl::InternalError("unreachable record kind");
}

}  // namespace

absl::StatusOr<Record> DecodeRecord(std::span<const uint8_t> bytes_untrusted) {
  if (bytes_untrusted.size() < kHeaderBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("truncated record header: ", bytes_untrusted.size(), " bytes left"));
  }
  const auto header = Load<Header>(bytes_untrusted, 0);
  Record r;
  r.kind = static_cast<Kind>(header.kind);
  r.flags = header.flags;
  r.size_bytes = header.size_bytes;
  r.aux = header.aux;
  if (r.size_bytes < kHeaderBytes || r.size_bytes % kAlignment != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("record size ", r.size_bytes, " is not a positive multiple of 8"));
  }
  if (r.size_bytes > bytes_untrusted.size()) {
    return absl::InvalidArgumentError(absl::StrCat("record of ", r.size_bytes,
                                                   " bytes overruns the ", bytes_untrusted.size(),
                                                   " bytes left in the lane"));
  }
  if (header.kind == 0) {
    return absl::InvalidArgumentError("record kind 0 (zeroed or overwritten memory)");
  }
  if (header.kind > kMaxKnownKind) {
    r.unknown_kind = true;
    return r;
  }
  if (absl::Status s = DecodeBody(bytes_untrusted.first(r.size_bytes), r); !s.ok()) return s;
  return r;
}

}  // namespace protond::record
