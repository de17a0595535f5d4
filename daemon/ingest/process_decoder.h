// Turns one process's lane bytes into call-tree updates. The bytes are an untrusted private copy;
// each lane keeps a cursor (read position, owning thread, session, open scopes, state) that is
// stored with the aggregates, so decoding resumes exactly after a daemon restart. Contexts, names
// and CUDA devices are per process (any lane may define them). Used by the ingest thread only.
#ifndef PROTOND_DAEMON_INGEST_PROCESS_DECODER_H_
#define PROTOND_DAEMON_INGEST_PROCESS_DECODER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "common/record/record_decoder.h"
#include "daemon/aggregate/call_tree.h"
#include "daemon/ingest/clock_calibration.h"
#include "daemon/instrumentation/circular_buffer.h"
#include "daemon/store/store.h"

namespace protond::ingest {

using record::NameClass;

struct OpenScope {
  uint32_t context_id;
  uint64_t enter_ns;
};

// The blob (kBlobChunk) a lane is in the middle of. Not stored: a daemon restart between two
// chunks loses the blob.
struct PartialBlob {
  uint32_t id = 0;  // 0: none
  uint32_t blob_class = 0;
  uint32_t total_bytes = 0;
  std::string bytes;
  uint32_t lost_id = 0;  // a blob that lost a chunk: its later chunks are skipped
};

// Where the daemon stands in one lane.
struct LaneCursor {
  uint64_t read_pos = 0;
  uint64_t dropped_seen = 0;
  std::string corrupt_reason;
  uint64_t session_id = 0;  // 0: records are not attributed (none announced, or refused)
  uint32_t tid = 0;
  uint32_t state_name_id = 0;
  std::vector<OpenScope> stack;
  uint32_t lane = 0;  // the lane's index in its region, which names trace events; not stored
  PartialBlob blob;   // not stored

  store::LaneRow ToRow(uint64_t process_id, uint32_t lane) const;
  static absl::StatusOr<LaneCursor> FromRow(const store::LaneRow& row);
};

// A session that accepts this process's records, as the decoder sees it.
struct SessionSink {
  aggregate::CallTree* tree;
  uint64_t* records;
  std::vector<std::string>* problems;  // distinct lines, at most kMaxProblems
  // Trace sessions only (nullptr otherwise): each completed scope and each GPU activity, as an
  // event keyed by its record's lane and position.
  std::vector<store::ScopeEventRow>* scope_events = nullptr;
  std::vector<store::GpuEventRow>* gpu_events = nullptr;
  // Each in-kernel scope interval of an instrumentation buffer, keyed by the buffer's last chunk.
  std::vector<store::KernelScopeEventRow>* kernel_scope_events = nullptr;
  // Started in pcsampling mode: takes the process's PC samples (another session of the same
  // process may have turned sampling on).
  bool pc_sampling = false;
  // pcsampling sessions: the cubins of sampled modules, stored once per CRC for every session.
  std::vector<store::CubinRow>* cubins = nullptr;
  // Every session, tree or trace: each NCCL collective call (kCollective), keyed like the events,
  // and each NCCL kernel, for the GPU times of the calls that name it.
  std::vector<store::CollectiveEventRow>* collective_events = nullptr;
  std::vector<store::CollectiveKernelRow>* collective_kernels = nullptr;
};
inline constexpr size_t kMaxProblems = 32;
// Adds `problem` to the session unless it is already there or the list is full.
void ReportProblem(SessionSink& sink, std::string problem);
// Replaces the session's problem that starts with `prefix` by `problem`, or adds it as
// ReportProblem does: for a line whose numbers grow, such as a running total.
void ReplaceProblem(SessionSink& sink, std::string_view prefix, std::string problem);

// Counters of records the decoder skipped, by cause (documented in docs/record-format.md).
// The shim hands out context ids from 1 up; protond keeps, per session, a table indexed by them
// (the node of each context), so an id must stay below this: 4M contexts, a 16 MB table at most.
inline constexpr uint32_t kMaxContextId = 1u << 22;

struct DecoderStats {
  uint64_t unknown_kind = 0;         // a newer shim's record kind
  uint64_t outside_session = 0;      // no session announced, or one this process may not use
  uint64_t undefined_reference = 0;  // a context or name id never defined
  uint64_t unmatched_exit = 0;       // an exit with no matching enter on the lane
  uint64_t abandoned_scopes = 0;     // enters whose exit never came (thread ended, exit lost;
                                     // not those open when their session stopped recording)
  uint64_t reversed_activity = 0;    // GPU work that ended before it started (stored as 0 ns)
  uint64_t incomplete_blobs = 0;     // blobs that lost a chunk (a full lane, a daemon restart)
  // In a context deeper than kMaxTreeDepth, or whose node would be (a kernel under the deepest
  // scope), and enters past kMaxTreeDepth open scopes on a lane.
  uint64_t too_deep = 0;
  uint64_t context_id_past_limit = 0;  // a context definition whose id is kMaxContextId or more

  // "3 outside its sessions, 1 of an unknown kind" (only the causes that occurred); "" if none.
  std::string Summary() const;
};

class ProcessDecoder {
 public:
  // Returns the sink for `session_id`, or nullptr if the process may not record into it.
  using SessionLookup = absl::FunctionRef<SessionSink*(uint64_t session_id)>;

  explicit ProcessDecoder(uint64_t process_id) : process_id_(process_id) {}

  // Applies the records in `bytes` (starting at cursor.read_pos) and advances the cursor. An
  // error means the lane's framing is lost: the cursor stops before the bad record.
  absl::Status DecodeLane(LaneCursor& cursor, std::span<const uint8_t> bytes,
                          SessionLookup sessions);

  // Rows for contexts and names defined, and devices new or changed, since the last call.
  void TakeChangedRows(store::Batch& batch);
  void Load(const std::vector<store::ContextRow>& contexts,
            const std::vector<store::NameRow>& names);
  // Drops the per-session lookup state of an ended session.
  void ForgetSession(uint64_t session_id) { sessions_.erase(session_id); }
  const DecoderStats& stats() const { return stats_; }
  // protond's own reading of the TSC, before each cycle's lanes: TSC timestamps are converted and
  // the process's clock pairs checked with it.
  void SetHostTsc(const HostTsc& host) { clock_.SetHost(host); }
  // What the checks of the process's clock pairs found ("" if nothing went wrong).
  std::string ClockSummary() const { return clock_.Summary(); }
  // The CUDA devices the process's records described since the daemon started, by ordinal.
  std::vector<store::DeviceRow> devices() const;

 private:
  struct Context {
    uint32_t parent;
    std::string name;
    uint32_t depth;  // levels below ROOT, as its node's in a session's tree
  };
  struct Name {
    int name_class;
    // The name, parsed as a metric name; kernel names and source lines verbatim.
    aggregate::MetricName metric;
    aggregate::StallReason stall;  // kStallReason names only
    bool nccl_kernel = false;      // kKernel names of NCCL's device kernels
  };
  static Name MakeName(int name_class, std::string_view text);
  // Per session: context id -> node id + 1 (0: not resolved yet), and the leaf node of each GPU
  // activity at a node, keyed by (node, kind << 32 | name id or copy kind).
  // and the soft problems of each instrumented kernel's buffers so far (by kernel name id), which
  // the session's problems show as one line per kernel.
  struct KernelProblems {
    uint64_t launches = 0;  // buffers that had problems
    instrumentation::DecodeProblems total;
  };
  struct SessionNodes {
    std::vector<uint32_t> contexts;
    absl::flat_hash_map<std::pair<uint32_t, uint64_t>, uint32_t> activities;
    absl::flat_hash_map<uint32_t, KernelProblems> kernel_problems;
  };

  void Apply(LaneCursor& cursor, const record::Record& r, SessionLookup sessions);
  void Define(const record::Record& r);
  // Keeps the latest record of each device, whatever session the lane is in.
  void DefineDevice(const record::Record& r);
  // The session node of `context_id`, or nullopt, counted: the context is undefined or deeper
  // than kMaxTreeDepth.
  std::optional<uint32_t> NodeOf(uint64_t session_id, aggregate::CallTree& tree,
                                 uint32_t context_id);
  // The node `name` under `parent`, or nullopt, counted, where it would be deeper than
  // kMaxTreeDepth.
  std::optional<uint32_t> ChildOf(aggregate::CallTree& tree, uint32_t parent, std::string_view name,
                                  store::NodeKind kind = store::NodeKind::kFrame,
                                  uint64_t cubin_crc = 0);
  // Stored contexts, in id order: each gets its depth by a walk up to an ancestor whose depth is
  // known. One whose ancestors do not reach ROOT (a store older than the rule that a context
  // names a defined parent) is left out.
  void LoadDepths();
  // Whether `context_id` is defined deeper than kMaxTreeDepth.
  bool TooDeep(uint32_t context_id) const;
  // A scope record's time in CLOCK_MONOTONIC ns: as written, or converted from the TSC.
  uint64_t TimestampNs(const record::Record& r);
  uint64_t TimestampNs(uint8_t flags, uint64_t timestamp);
  void ApplyEnter(LaneCursor& cursor, const record::Record& r);
  void ApplyExit(LaneCursor& cursor, const record::Record& r, SessionSink& sink);
  void ApplyMetric(LaneCursor& cursor, const record::Record& r, SessionSink& sink);
  // A vector metric; its name must be of its class (the shim defines a name with the class of its
  // first value and refuses values of another).
  void ApplyVectorMetric(LaneCursor& cursor, const record::Record& r, SessionSink& sink);
  void ApplyGpuActivity(LaneCursor& cursor, const record::Record& r, SessionSink& sink);
  void ApplyPcSample(LaneCursor& cursor, const record::Record& r, SessionSink& sink);
  // An NCCL collective call: its times converted as a scope's, under the node of its context.
  void ApplyCollective(LaneCursor& cursor, const record::Record& r, SessionSink& sink);
  // Puts the chunk into the lane's blob; a complete blob is applied.
  void ApplyBlobChunk(LaneCursor& cursor, const record::Record& r, SessionSink& sink);
  // An intra-kernel profile buffer: per-scope cycles under the kernel's node.
  void ApplyInstrumentationBuffer(LaneCursor& cursor, std::string_view blob, SessionSink& sink);
  void ApplyCubin(std::string_view blob, SessionSink& sink);
  // A trace session's in-kernel scope intervals, on the GPU's timer, with their launch's
  // correlation id (the query places them beside the launch); `place_nodes` holds the node of
  // each of decoded.scopes.
  // The soft problems of one buffer of a kernel, added to the kernel's total in the session,
  // whose one line in the session's problems they update.
  void ReportKernelProblems(uint64_t session_id, uint32_t kernel_name_id,
                            const std::string& kernel_name,
                            const instrumentation::DecodeProblems& problems, SessionSink& sink);
  void AddKernelTimeline(const LaneCursor& cursor,
                         const record::InstrumentationBufferHeader& header,
                         const instrumentation::DecodedBuffer& decoded,
                         std::span<const std::optional<uint32_t>> place_nodes,
                         const std::string& kernel_name, SessionSink& sink);
  // The node of the GPU activity `leaf_name` (keyed by `leaf_key`) under `node`, or nullopt
  // (counted) where it would be deeper than kMaxTreeDepth.
  std::optional<uint32_t> ActivityLeaf(uint64_t session_id, aggregate::CallTree& tree,
                                       uint32_t node, uint64_t leaf_key,
                                       std::string_view leaf_name);
  // Whether `name_id` is a kernel name of NCCL's (its kKernel records carry collective calls).
  bool IsNcclKernel(uint32_t name_id) const;
  // The name `name_id` if it is defined with `name_class`, else nullptr.
  const Name* NameWithClass(uint32_t name_id, NameClass name_class) const;
  // The name of the leaf node of a GPU activity; false if it names an undefined kernel name.
  bool ActivityName(const record::Record& r, std::string_view* name) const;

  uint64_t process_id_;
  absl::flat_hash_map<uint32_t, Context> contexts_;
  absl::flat_hash_map<uint32_t, Name> names_;
  absl::flat_hash_map<uint64_t, SessionNodes> sessions_;
  // Not loaded after a restart: decoding needs none, and a row written again is the same upsert.
  absl::flat_hash_map<uint32_t, store::DeviceRow> devices_;
  std::vector<store::ContextRow> new_contexts_;
  std::vector<store::NameRow> new_names_;
  std::vector<store::DeviceRow> changed_devices_;
  // The process's clock pairs (kClockSync) from every lane: the TSC is one counter per machine.
  ClockCalibration clock_;
  DecoderStats stats_;
};

}  // namespace protond::ingest

#endif  // PROTOND_DAEMON_INGEST_PROCESS_DECODER_H_
