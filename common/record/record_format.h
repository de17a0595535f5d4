// The binary record format that the shim writes into shared-memory lanes and the daemon decodes.
// It is the contract between both sides and is documented in docs/record-format.md; any change
// bumps kRecordFormatVersion. Encoding lives here (inline: it is on the shim's hot path); decoding
// of untrusted bytes lives in record_decoder.h.
//
// Every record starts with an 8-byte header and is a multiple of 8 bytes long, little-endian:
//
//   0        1        2                 4                                  8
//   +--------+--------+-----------------+----------------------------------+
//   | kind   | flags  | size_bytes (u16)| aux (u32): context/name/thread id |
//   +--------+--------+-----------------+----------------------------------+
//   | payload (size_bytes - 8 bytes), zero-padded to a multiple of 8      ...
//
// Kinds and payloads:
//   kSessionBegin  aux=0             u64 session_id: later records of the lane belong to it
//   kThreadBegin   aux=tid           (none): a new thread took the lane; open scopes are void
//   kContextDef    aux=context_id    u32 parent_context_id, u32 name_bytes, name, padding
//   kNameDef       aux=name_id       u32 name_bytes, u32 0, name, padding; flags = NameClass
//   kScopeEnter    aux=context_id    u64 timestamp: CLOCK_MONOTONIC ns, or with flags
//                                    kTimestampTsc TSC ticks (v8)
//   kScopeExit     aux=context_id    u64 timestamp, as kScopeEnter
//   kMetric        aux=context_id    u32 name_id, u32 0, u64 value bits; flags = NameClass
//   kStateEnter    aux=name_id       u64 timestamp, as kScopeEnter
//   kStateExit     aux=name_id       u64 timestamp, as kScopeEnter
//   kKernel        aux=context_id    GpuActivityRecord (v2)
//   kMemcpy        aux=context_id    GpuActivityRecord; flags = CopyKind (v2)
//   kMemset        aux=context_id    GpuActivityRecord (v2)
//   kNotice        aux=0             u32 text_bytes, u32 0, text, padding: a line for the
//                                    session's problems, such as "CUPTI is held by ..." (v2)
//   kDeviceInfo    aux=CUDA ordinal  DeviceInfoRecord, name, padding: one GPU of the process (v3)
//   kPcSample      aux=context_id    PcSampleRecord: PC samples of one instruction and stall
//                                    reason, under a kernel's node (v4; the cubin's CRC, v7)
//   kBlobChunk     aux=blob_id       BlobChunkRecord, chunk bytes, padding: one piece of a blob
//                                    too large for a record, such as an instrumentation buffer (v5)
//                                    or a sampled kernel's cubin (v7)
//   kClockSync     aux=0             u64 tsc, u64 monotonic_ns: one TSC value and the
//                                    CLOCK_MONOTONIC time at that moment, for the daemon to
//                                    convert TSC timestamps of the process with (v8)
//   kVectorMetric  aux=context_id    u32 name_id, u32 count, count x (int64 or double): a
//                                    vector metric (Proton's list or tensor value), summed
//                                    element-wise; flags = NameClass kInt64VectorMetric or
//                                    kDoubleVectorMetric; 1 <= count <= kMaxVectorMetricElements
//                                    (v9)
//   kCollective    aux=context_id    CollectiveRecord: one NCCL collective call of the process,
//                                    from NCCL's profiler plugin; flags as kScopeEnter (v10;
//                                    with its kernel's correlation id, v11)
//
// Context ids name interned scope paths: context 0 is ROOT and is never defined; every other id
// is defined (kContextDef) in a lane before that lane first uses it. Name ids (metrics, states,
// kernel names) likewise. Both are process-wide and stable for the life of the process.
#ifndef PROTOND_COMMON_RECORD_RECORD_FORMAT_H_
#define PROTOND_COMMON_RECORD_RECORD_FORMAT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace protond::record {

inline constexpr uint32_t kRecordFormatVersion = 11;
// The oldest format the daemon still reads: format 7 is format 8 without TSC timestamps (every
// timestamp is CLOCK_MONOTONIC ns) and without kClockSync; format 8 is format 9 without
// kVectorMetric and its name classes; format 9 is format 10 without kCollective; format 10 is
// format 11 with kCollective's records 8 bytes shorter (kCollectiveRecordV10Bytes: no
// launch_correlation_id and flags).
inline constexpr uint32_t kOldestReadableRecordFormatVersion = 7;
inline constexpr size_t kHeaderBytes = 8;
inline constexpr size_t kAlignment = 8;
// Names longer than this are truncated by the writer and rejected by the reader.
inline constexpr size_t kMaxNameBytes = 4096;
inline constexpr uint32_t kRootContextId = 0;

enum class Kind : uint8_t {
  kSessionBegin = 1,
  kThreadBegin = 2,
  kContextDef = 3,
  kNameDef = 4,
  kScopeEnter = 5,
  kScopeExit = 6,
  kMetric = 7,
  kStateEnter = 8,
  kStateExit = 9,
  kKernel = 10,
  kMemcpy = 11,
  kMemset = 12,
  kNotice = 13,
  kDeviceInfo = 14,
  kPcSample = 15,
  kBlobChunk = 16,
  kClockSync = 17,
  kVectorMetric = 18,
  kCollective = 19,
};
inline constexpr uint8_t kMaxKnownKind = 19;

// The flags of kScopeEnter, kScopeExit, kStateEnter and kStateExit (v8), and of kCollective (v10).
enum TimestampFlags : uint8_t {
  // The timestamp is a TSC value, converted by the daemon with the process's kClockSync pairs;
  // without it, CLOCK_MONOTONIC ns. A process uses one clock for all its records.
  kTimestampTsc = 1u << 0,
};

// What a kNameDef names, and the value type of a kMetric.
enum class NameClass : uint8_t {
  kInt64Metric = 1,
  kDoubleMetric = 2,
  kState = 3,
  kKernel = 4,  // a kernel's name as the driver gives it (mangled for C++ kernels)
  // Where a sampled instruction is, as Proton names it: "dir/file.py:42@kernel"; without line
  // information, "kernel+0x1a0" (the instruction's offset in the function).
  kSourceLine = 5,
  kStallReason = 6,  // CUPTI's name: "smsp__pcsamp_warps_issue_stalled_long_scoreboard"
  // A metric whose values are vectors of int64 or double (v9): a name given as a vector stays a
  // vector of that element type, as a scalar name stays a scalar of its type.
  kInt64VectorMetric = 7,
  kDoubleVectorMetric = 8,
};
inline constexpr uint8_t kMaxNameClass = 8;

// What a blob (kBlobChunk) holds; the layouts are below.
enum class BlobClass : uint32_t {
  kInstrumentationBuffer = 1,  // InstrumentationBufferHeader, warps, names, the buffer
  kCubin = 2,                  // CubinBlobHeader, the cubin (v7)
};
inline constexpr uint32_t kMaxBlobClass = 2;
inline constexpr size_t kMaxBlobChunkBytes = 4096;
// The daemon refuses larger blobs: an instrumentation buffer of a very large grid is cut by the
// writer, not by the ring.
inline constexpr uint32_t kMaxBlobBytes = 256u << 20;

// What a kMemcpy copied between: the values of CUPTI's CUpti_ActivityMemcpyKind, which the format
// fixes here so that the daemon needs no CUPTI header.
enum class CopyKind : uint8_t {
  kUnknown = 0,
  kHostToDevice = 1,
  kDeviceToHost = 2,
  kHostToArray = 3,
  kArrayToHost = 4,
  kArrayToArray = 5,
  kArrayToDevice = 6,
  kDeviceToArray = 7,
  kDeviceToDevice = 8,
  kHostToHost = 9,
  kPeerToPeer = 10,
};
inline constexpr uint8_t kMaxCopyKind = 10;

struct Header {
  uint8_t kind;
  uint8_t flags;
  uint16_t size_bytes;
  uint32_t aux;
};
static_assert(sizeof(Header) == kHeaderBytes);
static_assert(offsetof(Header, size_bytes) == 2 && offsetof(Header, aux) == 4);

// Fixed-size records, as laid out in memory.
struct TimedRecord {  // kScopeEnter, kScopeExit, kStateEnter, kStateExit
  Header header;
  uint64_t timestamp;  // CLOCK_MONOTONIC ns, or TSC ticks with kTimestampTsc
};
// kClockSync: the TSC and CLOCK_MONOTONIC read at one moment (the shim reads the TSC before and
// after the clock and takes the middle). The shim writes one into a lane before the first TSC
// timestamp of each session there, and again before a record at least kClockSyncTicks after the
// lane's last one; the daemon keeps them per process (any lane's pair serves every lane).
struct ClockSyncRecord {
  Header header;
  uint64_t tsc;
  uint64_t monotonic_ns;
};
static_assert(sizeof(ClockSyncRecord) == 24 && offsetof(ClockSyncRecord, monotonic_ns) == 16);
// About 45 ms at 3 GHz: pairs this far apart keep a conversion within a microsecond of
// CLOCK_MONOTONIC while NTP slews it, at the cost of one clock read per lane per interval.
inline constexpr uint64_t kClockSyncTicks = uint64_t{1} << 27;
struct SessionBeginRecord {
  Header header;
  uint64_t session_id;
};
struct MetricRecord {
  Header header;
  uint32_t name_id;
  uint32_t reserved;
  uint64_t value_bits;  // int64 or IEEE-754 double, as the flags say
};
// kContextDef (first = parent id, second = name bytes); kNameDef and kNotice (first = bytes).
struct NamedRecordPrefix {
  Header header;
  uint32_t first;
  uint32_t second;
};
// kKernel, kMemcpy, kMemset: one piece of GPU work, attributed to the context that was current on
// the thread that launched it (for a graph replay: launch path, "<captured_at>", capture path).
struct GpuActivityRecord {
  Header header;
  uint64_t start_ns;  // CLOCK_MONOTONIC: the shim shifts CUPTI's clock by one offset
  uint64_t end_ns;
  uint64_t bytes;          // kMemcpy, kMemset; 0 for kernels
  uint64_t graph_node_id;  // 0 unless launched from a CUDA graph
  uint32_t name_id;        // kKernel: a NameClass::kKernel name; 0 otherwise
  uint32_t correlation_id;
  uint32_t device_id;
  uint32_t stream_id;
  uint32_t graph_id;
  uint32_t grid[3];   // kKernel
  uint32_t block[3];  // kKernel
  uint32_t reserved;
};
static_assert(sizeof(GpuActivityRecord) == 88);

// kDeviceInfo: what the process's CUDA device `aux` (the ordinal CUPTI puts in deviceId) is, for
// metrics derived later (peak FLOP/s, bandwidth). Written when GPU tracing starts; the daemon keeps
// the latest per process and device. The device's name follows, padded with zeros to 8 bytes:
//
//   0        8        12        16               20                      24
//   +--------+--------+---------+----------------+-----------------------+
//   | Header | arch   | num_sms | clock_rate_khz | memory_clock_rate_khz |
//   +--------+--------+---------+----------------+-----------------------+
//   24                 28           32             40
//   +------------------+------------+--------------+------------------------------+
//   | bus_width_bits   | name_bytes | memory_bytes | name (name_bytes), zeros ... |
//   +------------------+------------+--------------+------------------------------+
struct DeviceInfoRecord {
  Header header;
  uint32_t arch;  // compute capability major * 10 + minor: 90 for the H100
  uint32_t num_sms;
  uint32_t clock_rate_khz;
  uint32_t memory_clock_rate_khz;
  uint32_t bus_width_bits;
  uint32_t name_bytes;    // at most kMaxNameBytes
  uint64_t memory_bytes;  // total global memory
};
static_assert(sizeof(DeviceInfoRecord) == 40);
static_assert(offsetof(DeviceInfoRecord, bus_width_bits) == 24 &&
              offsetof(DeviceInfoRecord, name_bytes) == 28 &&
              offsetof(DeviceInfoRecord, memory_bytes) == 32);

// kPcSample: `samples` PC samples of the instruction at `pc_offset` in a kernel, taken while the
// warp was in one state (`reason_name_id`). The context (aux) and kernel_name_id are those of the
// kernel's kKernel records, so the samples land under the kernel's node; a kernel run from several
// contexts has its samples split between them by GPU time (PC sampling does not tell launches
// apart).
struct PcSampleRecord {
  Header header;
  uint32_t kernel_name_id;  // NameClass::kKernel
  uint32_t line_name_id;    // NameClass::kSourceLine
  uint32_t reason_name_id;  // NameClass::kStallReason
  uint32_t pc_offset;       // in the function's SASS
  uint64_t samples;
  // CUPTI's CRC of the cubin the function is in, when the shim holds that cubin and has sent it
  // (a BlobClass::kCubin blob); 0 otherwise. Instructions of the same offset in cubins of the
  // same function name (Triton compiles one kernel many ways) stay apart by it.
  uint64_t cubin_crc;
};
static_assert(sizeof(PcSampleRecord) == 40);

// kBlobChunk: bytes [offset, offset + chunk_bytes) of blob `aux` (a process-wide id, not 0), which
// is `total_bytes` long. One thread writes a blob's chunks in order into one lane; the daemon
// puts them together and drops a blob that misses a chunk (the ring was full).
struct BlobChunkRecord {
  Header header;
  uint32_t blob_class;  // BlobClass
  uint32_t total_bytes;
  uint32_t offset;
  uint32_t chunk_bytes;  // at most kMaxBlobChunkBytes; the bytes follow, zero-padded
};
static_assert(sizeof(BlobChunkRecord) == 24);

// kCollective (v10): one call of an NCCL collective, as NCCL's profiler plugin reported it to the
// shim. aux is the context it was called from (the calling thread's innermost scope); the flags
// say the clock of `start` and `end`, as for kScopeEnter. The texts are NCCL's own words, cut to
// kCollectiveTextBytes - 1 bytes and zero-padded ("AllReduce", "ncclFloat32", "RING", "LL");
// the daemon accepts printable ASCII only. `seq` numbers the communicator's collective calls as
// this process's plugin saw them from the communicator's creation, so that the same call has the
// same number on every rank.
//
// `launch_correlation_id` (v11) is CUPTI's correlation id of the kernel that carries the call: the
// calling thread's latest kernel launch when the call's event started (NCCL starts its calls'
// events right after launching their plan's kernel, on the launching thread), valid with
// kCollectiveLaunchKnown in `collective_flags`. The kernel's kKernel record has the same id, so
// the daemon can give the call its GPU times.
inline constexpr size_t kCollectiveTextBytes = 16;
inline constexpr uint32_t kCollectiveLaunchKnown = 1;
inline constexpr size_t kCollectiveRecordV10Bytes = 120;
struct CollectiveRecord {
  Header header;
  uint64_t start;      // when NCCL began the call on this rank (its task started on the host)
  uint64_t end;        // when NCCL ended it on the host: after launching its kernel
  uint64_t comm_hash;  // NCCL's commHash: the same on every rank of the communicator
  uint64_t seq;
  uint64_t count;  // elements, as the call gave them (per rank for AllGather, ReduceScatter)
  uint32_t rank;   // in the communicator
  uint32_t nranks;
  char op[kCollectiveTextBytes];  // NCCL's function name: "AllReduce"
  char datatype[kCollectiveTextBytes];
  char algorithm[kCollectiveTextBytes];
  char protocol[kCollectiveTextBytes];
  uint32_t launch_correlation_id;  // v11
  uint32_t collective_flags;       // v11: kCollectiveLaunchKnown or 0
};
static_assert(sizeof(CollectiveRecord) == 128 && offsetof(CollectiveRecord, op) == 56 &&
              offsetof(CollectiveRecord, protocol) == 104 &&
              offsetof(CollectiveRecord, launch_correlation_id) == kCollectiveRecordV10Bytes);

// BlobClass::kInstrumentationBuffer: the intra-kernel profile buffer of one kernel launch, copied
// out of the GPU after it, as the instrumented kernel wrote it. The blob is this header, the ids
// of the warps that record (u32 each, ascending; none: every warp), each scope's name (in scope id
// order, each followed by a zero byte), zeros to a multiple of 8, then the buffer (a whole number
// of blocks of block_bytes). The context and the kernel's name are defined in the lane before
// the blob's first chunk, as for a kKernel record.
struct InstrumentationBufferHeader {
  uint32_t context_id;      // where the kernel's node goes: the scope open at the copy
  uint32_t kernel_name_id;  // NameClass::kKernel
  uint32_t device_id;
  uint32_t layout;       // InstrumentationLayout
  uint32_t block_bytes;  // one CTA's part of the buffer (kCircular)
  uint32_t num_warps;    // per CTA (kCircular)
  uint32_t num_scopes;
  uint32_t scope_names_bytes;  // all scope names with their zero bytes
  // Warps that record (kCircular), when not all of them: granularity warp-group or CTA, or
  // sampled warps; each has its part of a block's data.
  uint32_t num_profiled_warps;
  uint32_t flags;  // InstrumentationFlags
  // CUPTI's correlation id of the calling thread's latest kernel launch, the kernel whose buffer
  // this is: its kKernel record places the buffer's times in the trace. Valid with kLaunchKnown.
  uint32_t launch_correlation_id;
  uint32_t reserved;
};
static_assert(sizeof(InstrumentationBufferHeader) == 48);

// BlobClass::kCubin: the cubin (an ELF image) of a module whose kernels were PC-sampled, sent by
// the shim once per cubin and recording set, before the samples that name its CRC; the daemon
// keeps one copy per CRC for the text of sampled instructions. The cubin follows the header.
struct CubinBlobHeader {
  uint64_t crc;  // CUPTI's cuptiGetCubinCrc, as in PcSampleRecord.cubin_crc; never 0
};
static_assert(sizeof(CubinBlobHeader) == 8);

enum InstrumentationFlags : uint32_t {
  // The shim was tracing GPU work and had seen the thread launch a kernel.
  kLaunchKnown = 1u << 0,
};
inline constexpr uint32_t kKnownInstrumentationFlags = kLaunchKnown;

enum class InstrumentationLayout : uint32_t {
  // Proton's circular layout (docs/instrumentation.md): the device buffer as the kernel wrote it.
  kCircular = 1,
  // Triton 3.6's host buffer (Proton's InstrumentationHook.host_buffer): a header of its own,
  // which gives the block size and warps (block_bytes and num_warps are 0 here), then the device
  // buffer in the circular layout.
  kTritonHostBuffer = 2,
};
static_assert(sizeof(TimedRecord) == 16 && sizeof(SessionBeginRecord) == 16);
static_assert(sizeof(MetricRecord) == 24 && offsetof(MetricRecord, value_bits) == 16);

// kVectorMetric: this prefix, then `count` 8-byte elements (int64 or IEEE-754 double bits, as the
// flags say), which make the record a multiple of 8 bytes as they are.
struct VectorMetricPrefix {
  Header header;
  uint32_t name_id;
  uint32_t count;
};
static_assert(sizeof(VectorMetricPrefix) == 16);
// A vector metric's record must fit the u16 size and the shim's record buffers (kMaxRecordBytes):
// longer vectors are refused by the shim (PROTOND_ERR_INVALID_ARGUMENT) and by the decoder.
inline constexpr uint32_t kMaxVectorMetricElements = 512;
static_assert(sizeof(NamedRecordPrefix) == 16);

constexpr size_t AlignUp(size_t n) { return (n + kAlignment - 1) & ~(kAlignment - 1); }

// Size of a kContextDef or kNameDef record carrying a name of `name_bytes`.
constexpr size_t NamedRecordBytes(size_t name_bytes) {
  return AlignUp(sizeof(NamedRecordPrefix) + name_bytes);
}
// Size of a kDeviceInfo record whose device name is `name_bytes` long.
constexpr size_t DeviceInfoRecordBytes(size_t name_bytes) {
  return AlignUp(sizeof(DeviceInfoRecord) + name_bytes);
}
// Size of a kBlobChunk record carrying `chunk_bytes`.
constexpr size_t BlobChunkRecordBytes(size_t chunk_bytes) {
  return AlignUp(sizeof(BlobChunkRecord) + chunk_bytes);
}
// Size of a kVectorMetric record of `count` elements.
constexpr size_t VectorMetricRecordBytes(size_t count) {
  return sizeof(VectorMetricPrefix) + count * sizeof(uint64_t);
}
// The largest record: a device with a name of kMaxNameBytes.
inline constexpr size_t kMaxRecordBytes = DeviceInfoRecordBytes(kMaxNameBytes);
static_assert(kMaxRecordBytes >= NamedRecordBytes(kMaxNameBytes));
static_assert(kMaxRecordBytes >= VectorMetricRecordBytes(kMaxVectorMetricElements));
static_assert(kMaxRecordBytes >= BlobChunkRecordBytes(kMaxBlobChunkBytes));
static_assert(kMaxRecordBytes <= UINT16_MAX);

constexpr Header MakeHeader(Kind kind, uint8_t flags, size_t size_bytes, uint32_t aux) {
  return Header{static_cast<uint8_t>(kind), flags, static_cast<uint16_t>(size_bytes), aux};
}

// `flags` is 0 (a CLOCK_MONOTONIC ns timestamp) or kTimestampTsc.
inline TimedRecord MakeTimed(Kind kind, uint32_t id, uint64_t timestamp, uint8_t flags = 0) {
  return TimedRecord{MakeHeader(kind, flags, sizeof(TimedRecord), id), timestamp};
}

inline ClockSyncRecord MakeClockSync(uint64_t tsc, uint64_t monotonic_ns) {
  return ClockSyncRecord{MakeHeader(Kind::kClockSync, 0, sizeof(ClockSyncRecord), 0), tsc,
                         monotonic_ns};
}

inline SessionBeginRecord MakeSessionBegin(uint64_t session_id) {
  return SessionBeginRecord{MakeHeader(Kind::kSessionBegin, 0, sizeof(SessionBeginRecord), 0),
                            session_id};
}

inline Header MakeThreadBegin(uint32_t tid) {
  return MakeHeader(Kind::kThreadBegin, 0, kHeaderBytes, tid);
}

// `type` is kInt64Metric or kDoubleMetric; `value_bits` the value's bytes.
inline MetricRecord MakeMetric(uint32_t context_id, uint32_t name_id, NameClass type,
                               uint64_t value_bits) {
  return MetricRecord{
      MakeHeader(Kind::kMetric, static_cast<uint8_t>(type), sizeof(MetricRecord), context_id),
      name_id, 0, value_bits};
}

inline MetricRecord MakeInt64Metric(uint32_t context_id, uint32_t name_id, int64_t value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return MakeMetric(context_id, name_id, NameClass::kInt64Metric, bits);
}

inline MetricRecord MakeDoubleMetric(uint32_t context_id, uint32_t name_id, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return MakeMetric(context_id, name_id, NameClass::kDoubleMetric, bits);
}

// Writes a kVectorMetric record of `count` elements (`values`: count x 8 bytes of int64 or double,
// as `type`, kInt64VectorMetric or kDoubleVectorMetric, says) into `out`, which must hold
// VectorMetricRecordBytes(count) bytes (count <= kMaxVectorMetricElements). Returns the bytes
// written.
inline size_t EncodeVectorMetric(uint32_t context_id, uint32_t name_id, NameClass type,
                                 const void* values, uint32_t count, uint8_t* out) {
  const size_t size = VectorMetricRecordBytes(count);
  const VectorMetricPrefix prefix{
      MakeHeader(Kind::kVectorMetric, static_cast<uint8_t>(type), size, context_id), name_id,
      count};
  std::memcpy(out, &prefix, sizeof(prefix));
  std::memcpy(out + sizeof(prefix), values, count * sizeof(uint64_t));
  return size;
}

// Writes a record with a NamedRecordPrefix and `text` into `out`, which must hold
// NamedRecordBytes(text.size()) bytes (callers truncate text to kMaxNameBytes first). Returns the
// bytes written.
inline size_t EncodeNamed(Kind kind, uint8_t flags, uint32_t aux, uint32_t first, uint32_t second,
                          std::string_view text, uint8_t* out) {
  const size_t size = NamedRecordBytes(text.size());
  NamedRecordPrefix prefix{MakeHeader(kind, flags, size, aux), first, second};
  std::memset(out, 0, size);
  std::memcpy(out, &prefix, sizeof(prefix));
  std::memcpy(out + sizeof(prefix), text.data(), text.size());
  return size;
}

inline size_t EncodeContextDef(uint32_t context_id, uint32_t parent_id, std::string_view name,
                               uint8_t* out) {
  return EncodeNamed(Kind::kContextDef, 0, context_id, parent_id,
                     static_cast<uint32_t>(name.size()), name, out);
}

inline size_t EncodeNameDef(uint32_t name_id, NameClass name_class, std::string_view name,
                            uint8_t* out) {
  return EncodeNamed(Kind::kNameDef, static_cast<uint8_t>(name_class), name_id,
                     static_cast<uint32_t>(name.size()), 0, name, out);
}

inline size_t EncodeNotice(std::string_view text, uint8_t* out) {
  return EncodeNamed(Kind::kNotice, 0, 0, static_cast<uint32_t>(text.size()), 0, text, out);
}

// Writes `device` (its header and name_bytes are filled in here) followed by `name` into `out`,
// which must hold DeviceInfoRecordBytes(name.size()) bytes (callers truncate the name to
// kMaxNameBytes first). Returns the bytes written.
inline size_t EncodeDeviceInfo(uint32_t device_id, DeviceInfoRecord device, std::string_view name,
                               uint8_t* out) {
  const size_t size = DeviceInfoRecordBytes(name.size());
  device.header = MakeHeader(Kind::kDeviceInfo, 0, size, device_id);
  device.name_bytes = static_cast<uint32_t>(name.size());
  std::memset(out, 0, size);
  std::memcpy(out, &device, sizeof(device));
  std::memcpy(out + sizeof(device), name.data(), name.size());
  return size;
}

// Copies `text` into a CollectiveRecord text field: at most kCollectiveTextBytes - 1 bytes, the
// rest zeros.
inline void SetCollectiveText(std::string_view text, char (&field)[kCollectiveTextBytes]) {
  std::memset(field, 0, kCollectiveTextBytes);
  std::memcpy(field, text.data(), std::min(text.size(), kCollectiveTextBytes - 1));
}

// `flags` is 0 (CLOCK_MONOTONIC ns) or kTimestampTsc. Texts are set with SetCollectiveText.
inline CollectiveRecord MakeCollective(uint32_t context_id, uint8_t flags) {
  CollectiveRecord collective{};
  collective.header = MakeHeader(Kind::kCollective, flags, sizeof(CollectiveRecord), context_id);
  return collective;
}

inline PcSampleRecord MakePcSample(uint32_t context_id, uint32_t kernel_name_id,
                                   uint32_t line_name_id, uint32_t reason_name_id,
                                   uint32_t pc_offset, uint64_t samples, uint64_t cubin_crc = 0) {
  return PcSampleRecord{MakeHeader(Kind::kPcSample, 0, sizeof(PcSampleRecord), context_id),
                        kernel_name_id,
                        line_name_id,
                        reason_name_id,
                        pc_offset,
                        samples,
                        cubin_crc};
}

// Writes chunk `chunk` of blob `blob_id` into `out`, which must hold
// BlobChunkRecordBytes(chunk.size()) bytes (chunk.size() <= kMaxBlobChunkBytes). Returns the bytes
// written.
inline size_t EncodeBlobChunk(uint32_t blob_id, BlobClass blob_class, uint32_t total_bytes,
                              uint32_t offset, std::string_view chunk, uint8_t* out) {
  const size_t size = BlobChunkRecordBytes(chunk.size());
  const BlobChunkRecord prefix{MakeHeader(Kind::kBlobChunk, 0, size, blob_id),
                               static_cast<uint32_t>(blob_class), total_bytes, offset,
                               static_cast<uint32_t>(chunk.size())};
  std::memset(out, 0, size);
  std::memcpy(out, &prefix, sizeof(prefix));
  std::memcpy(out + sizeof(prefix), chunk.data(), chunk.size());
  return size;
}

// A zeroed activity record of `kind` (kKernel, kMemcpy or kMemset) with its header filled in.
inline GpuActivityRecord MakeGpuActivity(Kind kind, uint8_t flags, uint32_t context_id) {
  GpuActivityRecord record{};
  record.header = MakeHeader(kind, flags, sizeof(GpuActivityRecord), context_id);
  return record;
}

}  // namespace protond::record

#endif  // PROTOND_COMMON_RECORD_RECORD_FORMAT_H_
