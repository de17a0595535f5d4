#include "daemon/ingest/process_decoder.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/record/cubin_blob.h"
#include "common/record/instrumentation_blob.h"
#include "common/tree/tree_depth.h"
#include "daemon/instrumentation/circular_buffer.h"
#include "daemon/instrumentation/timeline.h"
#include "daemon/instrumentation/triton_host_buffer.h"
#include "view/jobs/nccl_kernel_name.h"

namespace protond::ingest {
namespace {

using record::BlobClass;
using record::Kind;

constexpr uint32_t kMaxDepth = kMaxTreeDepth;

template <typename T>
void Append(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

template <typename T>
bool Take(std::string_view& in, T* value) {
  if (in.size() < sizeof(T)) return false;
  std::memcpy(value, in.data(), sizeof(T));
  in.remove_prefix(sizeof(T));
  return true;
}

}  // namespace

std::string DecoderStats::Summary() const {
  std::string summary;
  auto add = [&summary](uint64_t count, absl::string_view what) {
    if (count == 0) return;
    absl::StrAppend(&summary, summary.empty() ? "" : ", ", count, " ", what);
  };
  add(outside_session, "outside its sessions");
  add(unknown_kind, "of an unknown kind");
  add(undefined_reference, "naming an undefined id");
  add(unmatched_exit, "exits without an enter");
  add(abandoned_scopes, "scopes never exited");
  add(reversed_activity, "GPU activities ending before they started");
  add(incomplete_blobs, "instrumentation buffers missing a part");
  add(too_deep, absl::StrCat("nested deeper than ", kMaxTreeDepth, " levels"));
  add(context_id_past_limit, absl::StrCat("defining a context id past ", kMaxContextId));
  return summary;
}

void ReportProblem(SessionSink& sink, std::string problem) {
  std::vector<std::string>& problems = *sink.problems;
  if (problems.size() >= kMaxProblems) return;
  for (const std::string& known : problems) {
    if (known == problem) return;
  }
  problems.push_back(std::move(problem));
}

void ReplaceProblem(SessionSink& sink, std::string_view prefix, std::string problem) {
  for (std::string& known : *sink.problems) {
    if (known.starts_with(prefix)) {
      known = std::move(problem);
      return;
    }
  }
  ReportProblem(sink, std::move(problem));
}

// Cursor encoding (daemon-private, stored as a blob): u64 session, u32 tid, u32 state, u32 depth,
// then depth x (u32 context, u64 enter_ns).
store::LaneRow LaneCursor::ToRow(uint64_t process_id, uint32_t lane) const {
  store::LaneRow row{process_id, lane, read_pos, dropped_seen, corrupt_reason, {}};
  Append(row.decoder_state, session_id);
  Append(row.decoder_state, tid);
  Append(row.decoder_state, state_name_id);
  Append(row.decoder_state, static_cast<uint32_t>(stack.size()));
  for (const OpenScope& scope : stack) {
    Append(row.decoder_state, scope.context_id);
    Append(row.decoder_state, scope.enter_ns);
  }
  return row;
}

absl::StatusOr<LaneCursor> LaneCursor::FromRow(const store::LaneRow& row) {
  LaneCursor cursor;
  cursor.lane = row.lane;
  cursor.read_pos = row.read_pos;
  cursor.dropped_seen = row.dropped_seen;
  cursor.corrupt_reason = row.corrupt_reason;
  std::string_view in = row.decoder_state;
  uint32_t depth = 0;
  bool ok = Take(in, &cursor.session_id) && Take(in, &cursor.tid) &&
            Take(in, &cursor.state_name_id) && Take(in, &depth) && in.size() == depth * 12u;
  for (uint32_t i = 0; ok && i < depth; ++i) {
    OpenScope scope;
    ok = Take(in, &scope.context_id) && Take(in, &scope.enter_ns);
    cursor.stack.push_back(scope);
  }
  if (!ok) {
    return absl::DataLossError(absl::StrCat("stored state of lane ", row.lane, " of process ",
                                            row.process_id, " is damaged"));
  }
  return cursor;
}

absl::Status ProcessDecoder::DecodeLane(LaneCursor& cursor, std::span<const uint8_t> bytes,
                                        SessionLookup sessions) {
  while (!bytes.empty()) {
    absl::StatusOr<record::Record> r = record::DecodeRecord(bytes);
    if (!r.ok()) {
      return absl::DataLossError(
          absl::StrCat("at position ", cursor.read_pos, ": ", r.status().message()));
    }
    Apply(cursor, *r, sessions);
    cursor.read_pos += r->size_bytes;
    bytes = bytes.subspan(r->size_bytes);
  }
  return absl::OkStatus();
}

void ProcessDecoder::Apply(LaneCursor& cursor, const record::Record& r, SessionLookup sessions) {
  if (r.unknown_kind) {
    stats_.unknown_kind++;
    return;
  }
  switch (r.kind) {
    case Kind::kThreadBegin:
      stats_.abandoned_scopes += cursor.stack.size();
      cursor =
          LaneCursor{cursor.read_pos, cursor.dropped_seen, {}, 0, r.aux, 0, {}, cursor.lane, {}};
      return;
    case Kind::kSessionBegin:
      // Scopes open when the lane's last session stopped recording end with it, uncounted: a
      // session stopped from outside (protonctl stop) usually stops inside some scope.
      cursor.stack.clear();
      cursor.state_name_id = 0;
      cursor.session_id = sessions(r.value) != nullptr ? r.value : 0;
      if (cursor.session_id == 0) stats_.outside_session++;
      return;
    case Kind::kContextDef:
    case Kind::kNameDef:
      Define(r);
      return;
    case Kind::kDeviceInfo:
      DefineDevice(r);
      return;
    case Kind::kClockSync:
      clock_.Add({r.value, r.monotonic_ns});
      return;
    default:
      break;
  }
  SessionSink* sink = cursor.session_id != 0 ? sessions(cursor.session_id) : nullptr;
  if (sink == nullptr) {
    stats_.outside_session++;
    return;
  }
  ++*sink->records;
  switch (r.kind) {
    case Kind::kScopeEnter:
      return ApplyEnter(cursor, r);
    case Kind::kScopeExit:
      return ApplyExit(cursor, r, *sink);
    case Kind::kMetric:
      return ApplyMetric(cursor, r, *sink);
    case Kind::kVectorMetric:
      return ApplyVectorMetric(cursor, r, *sink);
    case Kind::kStateEnter:
      cursor.state_name_id = r.aux;
      return;
    case Kind::kStateExit:
      cursor.state_name_id = 0;
      return;
    case Kind::kKernel:
    case Kind::kMemcpy:
    case Kind::kMemset:
      return ApplyGpuActivity(cursor, r, *sink);
    case Kind::kPcSample:
      return ApplyPcSample(cursor, r, *sink);
    case Kind::kBlobChunk:
      return ApplyBlobChunk(cursor, r, *sink);
    case Kind::kCollective:
      return ApplyCollective(cursor, r, *sink);
    case Kind::kNotice:
      return ReportProblem(*sink, std::string(r.name));
    default:
      return;
  }
}

void ProcessDecoder::Define(const record::Record& r) {
  if (r.kind == Kind::kContextDef) {
    if (r.aux >= kMaxContextId) {
      stats_.context_id_past_limit++;
      return;
    }
    // A context comes after its parent, as the shim writes a path, outermost first: so each
    // one's depth is known, and no definition can close a cycle.
    uint32_t depth = 1;
    if (r.ref_id != record::kRootContextId) {
      auto parent = contexts_.find(r.ref_id);
      if (parent == contexts_.end()) {
        stats_.undefined_reference++;
        return;
      }
      depth = parent->second.depth + 1;
    }
    auto [it, inserted] =
        contexts_.try_emplace(r.aux, Context{r.ref_id, std::string(r.name), depth});
    if (inserted) new_contexts_.push_back({process_id_, r.aux, r.ref_id, it->second.name});
    return;
  }
  auto [it, inserted] = names_.try_emplace(r.aux, MakeName(r.flags, r.name));
  if (inserted) new_names_.push_back({process_id_, r.aux, r.flags, std::string(r.name)});
}

ProcessDecoder::Name ProcessDecoder::MakeName(int name_class, std::string_view text) {
  switch (static_cast<NameClass>(name_class)) {
    case NameClass::kKernel:
      return {name_class,
              {std::string(text), store::MetricAggregation::kInclusive},
              {},
              view::ParseNcclKernelName(text).has_value()};
    case NameClass::kSourceLine:
      return {name_class, {std::string(text), store::MetricAggregation::kInclusive}, {}};
    case NameClass::kStallReason:
      return {name_class,
              {std::string(text), store::MetricAggregation::kInclusive},
              aggregate::ParseStallReason(text)};
    default:
      return {name_class, aggregate::ParseMetricName(text), {}};
  }
}

bool ProcessDecoder::IsNcclKernel(uint32_t name_id) const {
  const Name* name = NameWithClass(name_id, NameClass::kKernel);
  return name != nullptr && name->nccl_kernel;
}

const ProcessDecoder::Name* ProcessDecoder::NameWithClass(uint32_t name_id,
                                                          NameClass name_class) const {
  auto it = names_.find(name_id);
  if (it == names_.end() || it->second.name_class != static_cast<int>(name_class)) return nullptr;
  return &it->second;
}

void ProcessDecoder::DefineDevice(const record::Record& r) {
  const record::DeviceInfoRecord& d = r.device;
  store::DeviceRow row{.process_id = process_id_,
                       .device_id = r.aux,
                       .name = std::string(r.name),
                       .arch = d.arch,
                       .num_sms = d.num_sms,
                       .clock_rate_khz = d.clock_rate_khz,
                       .memory_clock_rate_khz = d.memory_clock_rate_khz,
                       .bus_width_bits = d.bus_width_bits,
                       .memory_bytes = d.memory_bytes};
  auto [it, inserted] = devices_.try_emplace(r.aux, row);
  if (!inserted && it->second == row) return;  // written again at a later session's start
  it->second = row;
  changed_devices_.push_back(std::move(row));
}

std::optional<uint32_t> ProcessDecoder::NodeOf(uint64_t session_id, aggregate::CallTree& tree,
                                               uint32_t context_id) {
  if (context_id == record::kRootContextId) return aggregate::kRootNodeId;
  auto context = contexts_.find(context_id);
  if (context == contexts_.end()) {
    stats_.undefined_reference++;
    return std::nullopt;
  }
  if (context->second.depth > kMaxDepth) {
    stats_.too_deep++;
    return std::nullopt;
  }
  std::vector<uint32_t>& cache = sessions_[session_id].contexts;
  // Walk up to the nearest resolved ancestor (at most the context's depth: every context's
  // parent is defined), then intern the path back down.
  std::vector<uint32_t> path;
  uint32_t id = context_id;
  while (id != record::kRootContextId && (id >= cache.size() || cache[id] == 0)) {
    path.push_back(id);
    id = contexts_.find(id)->second.parent;
  }
  uint32_t node = id == record::kRootContextId ? aggregate::kRootNodeId : cache[id] - 1;
  for (auto step = path.rbegin(); step != path.rend(); ++step) {
    const std::optional<uint32_t> child = ChildOf(tree, node, contexts_.find(*step)->second.name);
    if (!child.has_value()) return std::nullopt;
    node = *child;
    if (*step >= cache.size()) cache.resize(*step + 1, 0);
    cache[*step] = node + 1;
  }
  return node;
}

std::optional<uint32_t> ProcessDecoder::ChildOf(aggregate::CallTree& tree, uint32_t parent,
                                                std::string_view name, store::NodeKind kind,
                                                uint64_t cubin_crc) {
  std::optional<uint32_t> child = tree.Child(parent, name, kind, cubin_crc);
  if (!child.has_value()) stats_.too_deep++;
  return child;
}

bool ProcessDecoder::TooDeep(uint32_t context_id) const {
  auto context = contexts_.find(context_id);
  return context != contexts_.end() && context->second.depth > kMaxDepth;
}

uint64_t ProcessDecoder::TimestampNs(const record::Record& r) {
  return TimestampNs(r.flags, r.value);
}

uint64_t ProcessDecoder::TimestampNs(uint8_t flags, uint64_t timestamp) {
  if ((flags & record::kTimestampTsc) == 0) return timestamp;
  // Counted in the calibration's summary when it cannot be converted.
  return clock_.ToNs(timestamp).value_or(0);
}

void ProcessDecoder::ApplyEnter(LaneCursor& cursor, const record::Record& r) {
  // The open scopes are stored with every commit: a lane keeps no more than a tree has levels.
  if (cursor.stack.size() >= kMaxDepth) {
    stats_.too_deep++;
    return;
  }
  cursor.stack.push_back({r.aux, TimestampNs(r)});
}

void ProcessDecoder::ApplyExit(LaneCursor& cursor, const record::Record& r, SessionSink& sink) {
  // Its enter was left out, and is not on the stack to be looked for.
  if (TooDeep(r.aux)) {
    stats_.too_deep++;
    return;
  }
  // Pop to the matching enter: scopes above it lost their exit (a dropped record).
  size_t depth = cursor.stack.size();
  while (depth > 0 && cursor.stack[depth - 1].context_id != r.aux) --depth;
  if (depth == 0) {
    stats_.unmatched_exit++;
    return;
  }
  const OpenScope scope = cursor.stack[depth - 1];
  stats_.abandoned_scopes += cursor.stack.size() - depth;
  cursor.stack.resize(depth - 1);
  const std::optional<uint32_t> node = NodeOf(cursor.session_id, *sink.tree, r.aux);
  if (!node.has_value()) return;
  const uint64_t exit_ns = TimestampNs(r);
  const uint64_t duration_ns = exit_ns >= scope.enter_ns ? exit_ns - scope.enter_ns : 0;
  sink.tree->AddScope(*node, process_id_, duration_ns);
  if (sink.scope_events != nullptr) {
    sink.scope_events->push_back({cursor.session_id, process_id_, cursor.lane, cursor.read_pos,
                                  cursor.tid, *node, scope.enter_ns, scope.enter_ns + duration_ns});
  }
}

void ProcessDecoder::ApplyMetric(LaneCursor& cursor, const record::Record& r, SessionSink& sink) {
  auto name = names_.find(r.ref_id);
  if (name == names_.end() || name->second.name_class == static_cast<int>(NameClass::kState) ||
      name->second.name_class == static_cast<int>(NameClass::kKernel)) {
    stats_.undefined_reference++;
    return;
  }
  const std::optional<uint32_t> node = NodeOf(cursor.session_id, *sink.tree, r.aux);
  if (!node.has_value()) return;
  const bool is_double = r.flags == static_cast<uint8_t>(NameClass::kDoubleMetric);
  absl::Status status =
      sink.tree->AddMetric(*node, process_id_, name->second.metric, is_double, r.value);
  if (!status.ok()) ReportProblem(sink, std::string(status.message()));
}

void ProcessDecoder::ApplyVectorMetric(LaneCursor& cursor, const record::Record& r,
                                       SessionSink& sink) {
  const Name* name = NameWithClass(r.ref_id, static_cast<NameClass>(r.flags));
  if (name == nullptr) {
    stats_.undefined_reference++;
    return;
  }
  const std::optional<uint32_t> node = NodeOf(cursor.session_id, *sink.tree, r.aux);
  if (!node.has_value()) return;
  std::vector<uint64_t> value_bits(r.elements.size() / sizeof(uint64_t));
  std::memcpy(value_bits.data(), r.elements.data(), r.elements.size());
  const bool is_double = r.flags == static_cast<uint8_t>(NameClass::kDoubleVectorMetric);
  absl::Status status =
      sink.tree->AddVectorMetric(*node, process_id_, name->metric, is_double, value_bits);
  if (!status.ok()) ReportProblem(sink, std::string(status.message()));
}

bool ProcessDecoder::ActivityName(const record::Record& r, std::string_view* name) const {
  // Nsight Systems' names for copies and sets.
  static constexpr std::string_view kCopyNames[record::kMaxCopyKind + 1] = {
      "[CUDA memcpy]",
      "[CUDA memcpy Host-to-Device]",
      "[CUDA memcpy Device-to-Host]",
      "[CUDA memcpy Host-to-Array]",
      "[CUDA memcpy Array-to-Host]",
      "[CUDA memcpy Array-to-Array]",
      "[CUDA memcpy Array-to-Device]",
      "[CUDA memcpy Device-to-Array]",
      "[CUDA memcpy Device-to-Device]",
      "[CUDA memcpy Host-to-Host]",
      "[CUDA memcpy Peer-to-Peer]"};
  if (r.kind == Kind::kMemcpy) {
    *name = kCopyNames[r.flags];  // the decoder checked flags <= kMaxCopyKind
    return true;
  }
  if (r.kind == Kind::kMemset) {
    *name = "[CUDA memset]";
    return true;
  }
  const Name* kernel = NameWithClass(r.activity.name_id, NameClass::kKernel);
  if (kernel == nullptr) return false;
  *name = kernel->metric.name;
  return true;
}

void ProcessDecoder::ApplyGpuActivity(LaneCursor& cursor, const record::Record& r,
                                      SessionSink& sink) {
  std::string_view leaf_name;
  if (!ActivityName(r, &leaf_name)) {
    stats_.undefined_reference++;
    return;
  }
  const std::optional<uint32_t> node = NodeOf(cursor.session_id, *sink.tree, r.aux);
  if (!node.has_value()) return;
  const uint64_t leaf_key = uint64_t{static_cast<uint8_t>(r.kind)} << 32 |
                            (r.kind == Kind::kKernel ? r.activity.name_id : r.flags);
  const std::optional<uint32_t> leaf =
      ActivityLeaf(cursor.session_id, *sink.tree, *node, leaf_key, leaf_name);
  if (!leaf.has_value()) return;
  const record::GpuActivityRecord& a = r.activity;
  if (a.end_ns < a.start_ns) stats_.reversed_activity++;
  const uint64_t duration_ns = a.end_ns >= a.start_ns ? a.end_ns - a.start_ns : 0;
  absl::Status status =
      sink.tree->AddGpuActivity(*leaf, process_id_, duration_ns, a.device_id, a.bytes);
  if (!status.ok()) ReportProblem(sink, std::string(status.message()));
  if (sink.gpu_events != nullptr) {
    sink.gpu_events->push_back({cursor.session_id, process_id_, cursor.lane, cursor.read_pos, *leaf,
                                static_cast<int>(r.kind), a.start_ns, a.start_ns + duration_ns,
                                a.device_id, a.stream_id, a.correlation_id});
  }
  if (sink.collective_kernels != nullptr && r.kind == Kind::kKernel && IsNcclKernel(a.name_id)) {
    sink.collective_kernels->push_back({cursor.session_id, process_id_, a.correlation_id,
                                        a.device_id, a.start_ns, a.start_ns + duration_ns});
  }
}

void ProcessDecoder::ApplyCollective(LaneCursor& cursor, const record::Record& r,
                                     SessionSink& sink) {
  // The scope's node, as a scope's own events name it: the tree interns the path once, and the
  // query names the call by the node's path as it names trace events.
  const std::optional<uint32_t> node = NodeOf(cursor.session_id, *sink.tree, r.aux);
  if (!node.has_value() || sink.collective_events == nullptr) return;
  const record::CollectiveRecord& c = r.collective;
  // The decoder checked that each text ends with a zero byte within its field.
  sink.collective_events->push_back(
      {cursor.session_id, process_id_, cursor.lane, cursor.read_pos, *node,
       TimestampNs(r.flags, c.start), TimestampNs(r.flags, c.end), c.comm_hash, c.seq, c.count,
       c.rank, c.nranks, c.op, c.datatype, c.algorithm, c.protocol, c.launch_correlation_id});
}

std::optional<uint32_t> ProcessDecoder::ActivityLeaf(uint64_t session_id, aggregate::CallTree& tree,
                                                     uint32_t node, uint64_t leaf_key,
                                                     std::string_view leaf_name) {
  auto& leaves = sessions_[session_id].activities;
  auto known = leaves.find({node, leaf_key});
  if (known != leaves.end()) return known->second;
  const std::optional<uint32_t> leaf = ChildOf(tree, node, leaf_name);
  if (leaf.has_value()) leaves.emplace(std::make_pair(node, leaf_key), *leaf);
  return leaf;
}

void ProcessDecoder::ApplyPcSample(LaneCursor& cursor, const record::Record& r, SessionSink& sink) {
  // Another session of the process turned sampling on; this one did not ask for samples.
  if (!sink.pc_sampling) return;
  const record::PcSampleRecord& sample = r.pc_sample;
  const Name* kernel = NameWithClass(sample.kernel_name_id, NameClass::kKernel);
  const Name* line = NameWithClass(sample.line_name_id, NameClass::kSourceLine);
  const Name* reason = NameWithClass(sample.reason_name_id, NameClass::kStallReason);
  if (kernel == nullptr || line == nullptr || reason == nullptr) {
    stats_.undefined_reference++;
    return;
  }
  const std::optional<uint32_t> node = NodeOf(cursor.session_id, *sink.tree, r.aux);
  if (!node.has_value()) return;
  // The same leaf as the kernel's own records: sampled lines hang under the kernel's node.
  const uint64_t leaf_key =
      uint64_t{static_cast<uint8_t>(Kind::kKernel)} << 32 | sample.kernel_name_id;
  const std::optional<uint32_t> leaf =
      ActivityLeaf(cursor.session_id, *sink.tree, *node, leaf_key, kernel->metric.name);
  if (!leaf.has_value()) return;
  // Each instruction under its line, named by its offset in the function as nvdisasm prints it
  // ("0x0290"); trees fold instructions into their line unless asked for them (tree_query.h).
  const std::optional<uint32_t> line_node = ChildOf(*sink.tree, *leaf, line->metric.name);
  if (!line_node.has_value()) return;
  // Apart by cubin: Triton compiles one kernel name many ways, each with its own instructions.
  const std::optional<uint32_t> instruction = ChildOf(
      *sink.tree, *line_node, absl::StrCat("0x", absl::Hex(sample.pc_offset, absl::kZeroPad4)),
      store::NodeKind::kInstruction, sample.cubin_crc);
  if (!instruction.has_value()) return;
  absl::Status status =
      sink.tree->AddPcSamples(*instruction, process_id_, reason->stall, sample.samples);
  if (!status.ok()) ReportProblem(sink, std::string(status.message()));
}

void ProcessDecoder::ApplyBlobChunk(LaneCursor& cursor, const record::Record& r,
                                    SessionSink& sink) {
  PartialBlob& blob = cursor.blob;
  if (r.aux == blob.lost_id) return;
  if (r.blob.offset == 0) {
    if (blob.id != 0) stats_.incomplete_blobs++;
    blob = PartialBlob{r.aux, r.blob.blob_class, r.blob.total_bytes, {}, 0};
  } else if (r.aux != blob.id || r.blob.offset != blob.bytes.size() ||
             r.blob.total_bytes != blob.total_bytes || r.blob.blob_class != blob.blob_class) {
    // Its start, or a chunk before it, was lost: the lane was full, or the daemon restarted.
    if (blob.id != 0 && blob.id != r.aux) stats_.incomplete_blobs++;
    stats_.incomplete_blobs++;
    blob = PartialBlob{0, 0, 0, {}, r.aux};
    ReportProblem(sink, r.blob.blob_class == static_cast<uint32_t>(BlobClass::kCubin)
                            ? "a cubin lost a part in a full lane and was dropped: its sampled "
                              "instructions have no text (raise PROTOND_LANE_BYTES)"
                            : "an instrumentation buffer lost a part in a full lane and was "
                              "dropped (raise PROTOND_LANE_BYTES, or copy out smaller buffers)");
    return;
  }
  blob.bytes.append(r.name);
  if (blob.bytes.size() < blob.total_bytes) return;
  const std::string bytes = std::move(blob.bytes);
  const uint32_t blob_class = blob.blob_class;
  blob = PartialBlob{};
  if (blob_class == static_cast<uint32_t>(BlobClass::kCubin)) return ApplyCubin(bytes, sink);
  ApplyInstrumentationBuffer(cursor, bytes, sink);
}

void ProcessDecoder::ApplyCubin(std::string_view bytes, SessionSink& sink) {
  // Only a pcsampling session has instructions to name.
  if (!sink.pc_sampling || sink.cubins == nullptr) return;
  absl::StatusOr<record::CubinBlob> blob = record::ParseCubinBlob(bytes);
  if (!blob.ok()) {
    return ReportProblem(sink, absl::StrCat("cubin dropped: ", blob.status().message()));
  }
  sink.cubins->push_back({blob->crc, std::string(blob->cubin)});
}

namespace {

// A launch of a large grid with fine scopes can hold tens of millions of intervals; past this
// many, the trace would be too large to view.
constexpr size_t kMaxKernelScopeEventsPerBuffer = size_t{1} << 20;

absl::StatusOr<instrumentation::DecodedBuffer> DecodeInstrumentationBlob(
    const record::InstrumentationBlob& blob) {
  std::vector<std::string> scope_names(blob.scope_names.begin(), blob.scope_names.end());
  if (blob.header.layout ==
      static_cast<uint32_t>(record::InstrumentationLayout::kTritonHostBuffer)) {
    return instrumentation::DecodeTritonHostBuffer(blob.buffer, std::move(scope_names));
  }
  instrumentation::BufferLayout layout;
  layout.block_bytes = blob.header.block_bytes;
  layout.num_warps = blob.header.num_warps;
  layout.profiled_warps = blob.profiled_warps;
  layout.scope_names = std::move(scope_names);
  return instrumentation::DecodeCircularBuffer(blob.buffer, layout);
}

}  // namespace

void ProcessDecoder::ApplyInstrumentationBuffer(LaneCursor& cursor, std::string_view bytes,
                                                SessionSink& sink) {
  absl::StatusOr<record::InstrumentationBlob> blob = record::ParseInstrumentationBlob(bytes);
  if (!blob.ok()) {
    return ReportProblem(sink,
                         absl::StrCat("instrumentation buffer dropped: ", blob.status().message()));
  }
  const record::InstrumentationBufferHeader& header = blob->header;
  const Name* kernel = NameWithClass(header.kernel_name_id, NameClass::kKernel);
  if (kernel == nullptr) {
    stats_.undefined_reference++;
    return;
  }
  const std::optional<uint32_t> node = NodeOf(cursor.session_id, *sink.tree, header.context_id);
  if (!node.has_value()) return;
  absl::StatusOr<instrumentation::DecodedBuffer> decoded = DecodeInstrumentationBlob(*blob);
  if (!decoded.ok()) {
    return ReportProblem(sink, absl::StrCat("instrumentation buffer of ", kernel->metric.name,
                                            " dropped: ", decoded.status().message()));
  }
  ReportKernelProblems(cursor.session_id, header.kernel_name_id, kernel->metric.name,
                       decoded->problems, sink);
  // The kernel's own node: the one its kKernel records (CUPTI) land on too.
  const uint64_t leaf_key =
      uint64_t{static_cast<uint8_t>(Kind::kKernel)} << 32 | header.kernel_name_id;
  const std::optional<uint32_t> leaf =
      ActivityLeaf(cursor.session_id, *sink.tree, *node, leaf_key, kernel->metric.name);
  if (!leaf.has_value()) return;
  absl::Status status;
  // By index in decoded->scopes; nullopt for a place deeper than kMaxTreeDepth (left out).
  std::vector<std::optional<uint32_t>> place_nodes;
  // In-kernel scopes nest as they ran: each under the scope around it.
  for (const instrumentation::ScopeTotals& scope : decoded->scopes) {
    std::optional<uint32_t> scope_node = leaf;
    for (size_t i = 0; i < scope.path.size() && scope_node.has_value(); ++i) {
      const uint32_t scope_id = scope.path[i];
      scope_node =
          ChildOf(*sink.tree, *scope_node,
                  scope_id < blob->scope_names.size() ? std::string(blob->scope_names[scope_id])
                                                      : absl::StrCat("scope ", scope_id));
    }
    place_nodes.push_back(scope_node);
    if (!scope_node.has_value()) continue;
    status.Update(sink.tree->AddKernelScope(*scope_node, process_id_, scope.count, scope.cycles,
                                            scope.normalized_cycles, header.device_id));
  }
  if (!status.ok()) ReportProblem(sink, std::string(status.message()));
  if (sink.kernel_scope_events != nullptr) {
    AddKernelTimeline(cursor, header, *decoded, place_nodes, kernel->metric.name, sink);
  }
}

void ProcessDecoder::ReportKernelProblems(uint64_t session_id, uint32_t kernel_name_id,
                                          const std::string& kernel_name,
                                          const instrumentation::DecodeProblems& problems,
                                          SessionSink& sink) {
  if (instrumentation::ListProblems(problems).empty()) return;
  KernelProblems& kernel = sessions_[session_id].kernel_problems[kernel_name_id];
  ++kernel.launches;
  instrumentation::AddProblems(problems, kernel.total);
  const std::string subject = absl::StrCat("in-kernel scopes of ", kernel_name, ", ");
  ReplaceProblem(
      sink, subject,
      absl::StrCat(subject, kernel.launches, kernel.launches == 1 ? " launch: " : " launches: ",
                   instrumentation::ListProblems(kernel.total)));
}

void ProcessDecoder::AddKernelTimeline(const LaneCursor& cursor,
                                       const record::InstrumentationBufferHeader& header,
                                       const instrumentation::DecodedBuffer& decoded,
                                       std::span<const std::optional<uint32_t>> place_nodes,
                                       const std::string& kernel_name, SessionSink& sink) {
  if ((header.flags & record::kLaunchKnown) == 0) {
    return ReportProblem(
        sink, absl::StrCat("the in-kernel scopes of ", kernel_name,
                           " are not in the trace: when their buffer was recorded, GPU work was "
                           "not traced or the thread had launched no kernel"));
  }
  auto device = devices_.find(header.device_id);
  const instrumentation::KernelTimeline timeline = instrumentation::PlaceOnTimeline(
      decoded, device != devices_.end() ? device->second.clock_rate_khz : 0,
      kMaxKernelScopeEventsPerBuffer);
  if (timeline.left_out > 0) {
    ReportProblem(sink, absl::StrCat("the trace keeps the first ", kMaxKernelScopeEventsPerBuffer,
                                     " in-kernel scope intervals of a launch; launches of ",
                                     kernel_name, " had more"));
  }
  if (timeline.clock_source == instrumentation::ClockSource::kAssumed) {
    ReportProblem(sink, absl::StrCat("in-kernel times of ", kernel_name,
                                     " assume a 1 GHz SM clock: its blocks ran too briefly to "
                                     "measure the clock, and the device's rate is unknown"));
  }
  uint32_t seq = 0;
  for (const instrumentation::PlacedInterval& interval : timeline.intervals) {
    const std::optional<uint32_t> node = place_nodes[interval.place];
    if (!node.has_value()) continue;
    sink.kernel_scope_events->push_back(
        {cursor.session_id, process_id_, cursor.lane, cursor.read_pos, seq++, *node,
         header.launch_correlation_id, header.device_id, interval.sm_id, interval.block_id,
         interval.warp_id, interval.start_ns, interval.end_ns, interval.cycles});
  }
}

std::vector<store::DeviceRow> ProcessDecoder::devices() const {
  std::vector<store::DeviceRow> rows;
  for (const auto& [device_id, row] : devices_) rows.push_back(row);
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.device_id < b.device_id; });
  return rows;
}

void ProcessDecoder::TakeChangedRows(store::Batch& batch) {
  batch.contexts.insert(batch.contexts.end(), new_contexts_.begin(), new_contexts_.end());
  batch.names.insert(batch.names.end(), new_names_.begin(), new_names_.end());
  batch.devices.insert(batch.devices.end(), changed_devices_.begin(), changed_devices_.end());
  new_contexts_.clear();
  new_names_.clear();
  changed_devices_.clear();
}

void ProcessDecoder::Load(const std::vector<store::ContextRow>& contexts,
                          const std::vector<store::NameRow>& names) {
  for (const auto& row : contexts) {
    if (row.context_id < kMaxContextId) {
      contexts_[row.context_id] = {row.parent_context_id, row.name, 0};
    }
  }
  LoadDepths();
  for (const auto& row : names) {
    names_[row.name_id] = MakeName(row.name_class, row.name);
  }
}

void ProcessDecoder::LoadDepths() {
  constexpr uint32_t kUnknown = 0;  // a context's own depth is at least 1
  constexpr uint32_t kUnrooted = UINT32_MAX;
  std::vector<uint32_t> path;
  for (auto& [context_id, context] : contexts_) {
    path.clear();
    uint32_t id = context_id;
    uint32_t depth = 0;  // of `id`, once the walk stops
    while (id != record::kRootContextId) {
      auto it = contexts_.find(id);
      // A missing parent, or a cycle (a path longer than there are contexts).
      if (it == contexts_.end() || path.size() > contexts_.size()) {
        depth = kUnrooted;
        break;
      }
      if (it->second.depth != kUnknown) {
        depth = it->second.depth;
        break;
      }
      path.push_back(id);
      id = it->second.parent;
    }
    for (auto step = path.rbegin(); step != path.rend(); ++step) {
      if (depth != kUnrooted) ++depth;
      contexts_.find(*step)->second.depth = depth;
    }
  }
  for (auto it = contexts_.begin(); it != contexts_.end();) {
    if (it->second.depth == kUnrooted) {
      contexts_.erase(it++);
    } else {
      ++it;
    }
  }
}

}  // namespace protond::ingest
