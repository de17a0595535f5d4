// Test-only: sample record values shared by the tests of the shim and the daemon.
#ifndef PROTOND_COMMON_RECORD_TEST_RECORDS_H_
#define PROTOND_COMMON_RECORD_TEST_RECORDS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/record/record_format.h"

namespace protond::record::testing {

inline constexpr char kH100Name[] = "NVIDIA H100 80GB HBM3";
inline constexpr uint64_t kH100MemoryBytes = 85029158912;  // 79.19 GiB

// The H100's fields as Proton's device_info reports them (clocks in kHz, bus width in bits), plus
// its memory; header and name_bytes are left to EncodeDeviceInfo.
inline DeviceInfoRecord H100() {
  DeviceInfoRecord device{};
  device.arch = 90;
  device.num_sms = 132;
  device.clock_rate_khz = 1980000;
  device.memory_clock_rate_khz = 2619000;
  device.bus_width_bits = 5120;
  device.memory_bytes = kH100MemoryBytes;
  return device;
}

inline constexpr char kA100Name[] = "NVIDIA A100-SXM4-80GB";

// An A100 (SXM4, 80 GB): a second, different device.
inline DeviceInfoRecord A100() {
  DeviceInfoRecord device{};
  device.arch = 80;
  device.num_sms = 108;
  device.clock_rate_khz = 1410000;
  device.memory_clock_rate_khz = 1593000;
  device.bus_width_bits = 5120;
  device.memory_bytes = 85097971712;  // 79.25 GiB
  return device;
}

// The kBlobChunk record of `chunk` (bytes [offset, offset + chunk.size()) of blob `blob_id`).
inline std::vector<uint8_t> BlobChunk(uint32_t blob_id, uint32_t total_bytes, uint32_t offset,
                                      std::string_view chunk,
                                      BlobClass blob_class = BlobClass::kInstrumentationBuffer) {
  std::vector<uint8_t> out(BlobChunkRecordBytes(chunk.size()));
  EncodeBlobChunk(blob_id, blob_class, total_bytes, offset, chunk, out.data());
  return out;
}

// The kVectorMetric record of `values` (int64 elements, or double ones for kDoubleVectorMetric
// given as their bits) for name `name_id` at `context_id`.
inline std::vector<uint8_t> VectorMetric(uint32_t context_id, uint32_t name_id,
                                         const std::vector<int64_t>& values,
                                         NameClass type = NameClass::kInt64VectorMetric) {
  std::vector<uint8_t> out(VectorMetricRecordBytes(values.size()));
  EncodeVectorMetric(context_id, name_id, type, values.data(), values.size(), out.data());
  return out;
}

// What a kCollective record says of one NCCL collective call; the texts are NCCL's words.
struct CollectiveCall {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t comm_hash = 0;
  uint64_t seq = 0;
  uint64_t count = 0;
  uint32_t rank = 0;
  uint32_t nranks = 2;
  std::string_view op = "AllReduce";
  std::string_view datatype = "ncclFloat32";
  std::string_view algorithm = "RING";
  std::string_view protocol = "LL";
};

// The kCollective record of `call`, made at `context_id`, its times on the clock `flags` names.
inline CollectiveRecord Collective(uint32_t context_id, uint8_t flags, const CollectiveCall& call) {
  CollectiveRecord record = MakeCollective(context_id, flags);
  record.start = call.start;
  record.end = call.end;
  record.comm_hash = call.comm_hash;
  record.seq = call.seq;
  record.count = call.count;
  record.rank = call.rank;
  record.nranks = call.nranks;
  SetCollectiveText(call.op, record.op);
  SetCollectiveText(call.datatype, record.datatype);
  SetCollectiveText(call.algorithm, record.algorithm);
  SetCollectiveText(call.protocol, record.protocol);
  return record;
}

}  // namespace protond::record::testing

#endif  // PROTOND_COMMON_RECORD_TEST_RECORDS_H_
