#include "view/jobs/plugin_records.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>

namespace protond::view {
namespace {

struct NcclDatatype {
  std::string_view nccl;  // as ncclDataType_t's enumerators are named
  std::string_view name;  // the view's, as kernel names spell it (nccl_kernel_name.h)
  uint64_t bytes;
};
// ncclChar, ncclInt, ncclHalf, ncclFloat and ncclDouble are NCCL's aliases of the sized names.
constexpr std::array<NcclDatatype, 17> kDatatypes = {{
    {"ncclInt8", "i8", 1},
    {"ncclChar", "i8", 1},
    {"ncclUint8", "u8", 1},
    {"ncclInt32", "i32", 4},
    {"ncclInt", "i32", 4},
    {"ncclUint32", "u32", 4},
    {"ncclInt64", "i64", 8},
    {"ncclUint64", "u64", 8},
    {"ncclFloat16", "f16", 2},
    {"ncclHalf", "f16", 2},
    {"ncclFloat32", "f32", 4},
    {"ncclFloat", "f32", 4},
    {"ncclFloat64", "f64", 8},
    {"ncclDouble", "f64", 8},
    {"ncclBfloat16", "bf16", 2},
    {"ncclFloat8e4m3", "f8e4m3", 1},
    {"ncclFloat8e5m2", "f8e5m2", 1},
}};

const NcclDatatype* FindDatatype(std::string_view nccl_datatype) {
  for (const NcclDatatype& datatype : kDatatypes) {
    if (datatype.nccl == nccl_datatype) return &datatype;
  }
  return nullptr;
}

}  // namespace

std::string NcclDatatypeName(std::string_view nccl_datatype) {
  const NcclDatatype* datatype = FindDatatype(nccl_datatype);
  return std::string(datatype != nullptr ? datatype->name : nccl_datatype);
}

uint64_t NcclCallBytes(std::string_view op, std::string_view nccl_datatype, uint64_t count,
                       uint64_t nranks) {
  const NcclDatatype* datatype = FindDatatype(nccl_datatype);
  if (datatype == nullptr) return 0;
  const std::optional<CollectiveOp> parsed = ParseCollectiveOp(op);
  const bool per_rank_count =
      parsed == CollectiveOp::kAllGather || parsed == CollectiveOp::kReduceScatter;
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, datatype->bytes, &bytes) ||
      (per_rank_count && __builtin_mul_overflow(bytes, nranks, &bytes))) {
    return std::numeric_limits<uint64_t>::max();
  }
  return bytes;
}

std::vector<CollectiveRecordUntrusted> CollectivesFromPlugin(
    std::span<const PluginSession> sessions, std::string_view job) {
  std::vector<CollectiveRecordUntrusted> records;
  for (const PluginSession& plugin : sessions) {
    if (plugin.collectives == nullptr) continue;
    for (const v1::CollectiveEvent& event : plugin.collectives->events()) {
      CollectiveRecordUntrusted& record = records.emplace_back();
      record.job = std::string(job);
      record.host = plugin.host;
      record.pid = event.pid();
      record.rank = event.rank();
      record.nranks = event.nranks();
      record.comm_id = event.comm_hash();
      record.seq = event.seq();
      const std::optional<CollectiveOp> op = ParseCollectiveOp(event.op());
      record.op = op.has_value() ? std::string(CollectiveOpName(*op)) : event.op();
      record.bytes = NcclCallBytes(event.op(), event.datatype(), event.count(), event.nranks());
      record.datatype = NcclDatatypeName(event.datatype());
      record.algorithm = event.algorithm();
      record.protocol = event.protocol();
      // Past INT64_MAX a time turns negative, which validation refuses as bad_times.
      record.start_ns = static_cast<int64_t>(event.start_ns());
      record.end_ns = static_cast<int64_t>(event.end_ns());
      record.scope_path = event.scope_path();
      if (event.has_kernel()) {
        record.gpu = TimeSpanNs{static_cast<int64_t>(event.kernel().start_ns()),
                                static_cast<int64_t>(event.kernel().end_ns())};
      }
    }
  }
  return records;
}

}  // namespace protond::view
