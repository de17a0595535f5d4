// The daemon's persistent store: one SQLite database (WAL) per daemon holding sessions, the
// processes that recorded into them, their call trees, and each lane's read position and decoder
// state. The schema is documented in docs/store-schema.md and versioned with PRAGMA user_version.
//
// Exactly-once: CommitBatch writes aggregates, read positions and decoder state in ONE
// transaction, as absolute values (not increments), so replaying a batch changes nothing and a
// crash between commits loses only what the rings still hold.
//
// Threads: a Store is used by one thread at a time (the daemon's ingest thread writes; query
// handlers open their own Store on the same file for reading).
#ifndef PROTOND_DAEMON_STORE_STORE_H_
#define PROTOND_DAEMON_STORE_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace protond::store {

inline constexpr int kSchemaVersion = 16;

// What a session keeps: the call tree (Proton's data="tree"), or the tree and every event
// (data="trace": scope instances and GPU activities, for a Chrome trace).
enum class SessionData : int { kTree = 1, kTrace = 2 };

enum class SessionState : int { kRunning = 1, kStopped = 2 };

// A stopped window's verdict on its NCCL collective calls (view/history/window_verdict.h,
// v1::WindowVerdict says what each value is); collective_calls 0: it recorded none.
struct WindowVerdictRow {
  uint64_t collective_calls = 0;
  uint64_t judged_calls = 0;
  int32_t late_rank = -1;
  uint32_t late_pid = 0;
  double late_mean_ns = 0;
  double others_wait_ns = 0;
  double others_wait_share = 0;
  bool operator==(const WindowVerdictRow&) const = default;
};

// A stopped always-on window's GPU work (view/history/window_summary.h) and verdict, computed
// once by the daemon after the window's tree was committed, kept beside the window and deleted
// with it.
struct WindowSummaryRow {
  uint64_t session_id = 0;
  double gpu_time_ns = 0;
  uint32_t gpus_used = 1;
  std::string top_kernel;  // as the driver named it; "" without GPU work
  double top_kernel_time_ns = 0;
  WindowVerdictRow verdict{};  // schema 15
  // A period's time recorded: its windows' lengths summed (schema 16); 0 for a window, whose
  // length is its own start to end.
  int64_t recorded_ns = 0;
};

// What an always-on history session holds (schema 16): one window, or the windows of one clock
// hour (UTC) merged into one tree, or the hourly periods of one UTC day merged again.
enum class HistoryPeriod : int { kWindow = 0, kHour = 1, kDay = 2 };

struct SessionRow {
  uint64_t session_id = 0;
  std::string name;
  uint32_t uid = 0;  // the owner: only this uid (or root) may read or stop the session
  SessionState state = SessionState::kRunning;
  int64_t start_time_unix_ns = 0;
  int64_t end_time_unix_ns = 0;
  std::vector<std::string> problems;  // one line each, in the order found
  SessionData data = SessionData::kTree;
  // CLOCK_REALTIME - CLOCK_MONOTONIC in ns, taken by the daemon when the session started: puts
  // the events' monotonic times on the epoch (one offset, as Proton takes one at start).
  int64_t clock_offset_ns = 0;
  // Started over running processes (protonctl start): it ends by itself when all of them have
  // exited, and at stop_at_unix_ns when that is not 0.
  bool attached = false;
  int64_t stop_at_unix_ns = 0;
  // Started for a job (protonctl start --job): its SLURM_JOB_ID or pod; and whether processes of
  // the job that register later join it (--include-new), which also keeps it running when its
  // processes have all exited, until it is stopped or its duration is up.
  std::string job{};
  bool admits_new = false;
  // Proton's mode, as common/mode/session_mode.h writes it ("" for none): checked when the
  // session started.
  std::string mode{};
  // Opened by protond --always-on (docs/always-on.md), not by someone: one window of the
  // process's or job's periodic profile.
  bool always_on_window = false;
  // With always_on_window: a window, or a period that merged windows (or hours) and replaced
  // them; start and end are then the period's UTC hour or day. kWindow for other sessions.
  HistoryPeriod period = HistoryPeriod::kWindow;
  // A stopped window's summary, once the daemon has computed it (window_summaries, schema 12);
  // read by ListSessions and GetSession, written by PutWindowSummary, never by CommitBatch.
  std::optional<WindowSummaryRow> window_summary{};
};

// Where a process sits in a job, from its environment ("" where unset).
struct JobRow {
  std::string hostname;
  std::string rank;
  std::string local_rank;
  std::string world_size;
  std::string slurm_job_id;
  std::string slurm_step_id;
  std::string pod;
  std::string pod_namespace;
  bool operator==(const JobRow&) const = default;
  // The job as `protonctl start --job` names it: the Slurm job id, else the pod ("": none).
  const std::string& name() const { return slurm_job_id.empty() ? pod : slurm_job_id; }
};

struct ProcessRow {
  uint64_t process_id = 0;
  uint32_t pid = 0;
  uint32_t uid = 0;
  uint64_t start_time_ticks = 0;  // /proc/PID/stat field 22: tells a reused pid apart
  std::string command;
  bool exited = false;
  JobRow job = {};
};

// A process's part in a session, with its record counters.
struct SessionProcessRow {
  uint64_t session_id = 0;
  uint64_t process_id = 0;
  uint64_t records = 0;
  uint64_t dropped_records = 0;
};

// A node of a session's call tree. Node 0 is ROOT and is never stored.
// What a node stands for: a frame of the call path (scope, kernel, source line, in-kernel scope),
// or one SASS instruction of a kernel under its source line, which PC samples land on and a tree
// shows only when asked (folded into its line otherwise).
enum class NodeKind : int { kFrame = 0, kInstruction = 1 };

struct NodeRow {
  uint64_t session_id = 0;
  uint32_t node_id = 0;
  uint32_t parent_id = 0;
  std::string name;
  NodeKind kind = NodeKind::kFrame;
  uint64_t cubin_crc = 0;  // an instruction's cubin (CubinRow), 0 when it is not known
};

// What one process contributed to a node: absolute values.
struct NodeStatsRow {
  uint64_t session_id = 0;
  uint32_t node_id = 0;
  uint64_t process_id = 0;
  uint64_t count = 0;
  uint64_t duration_ns_sum = 0;
  uint64_t duration_ns_min = 0;
  uint64_t duration_ns_max = 0;
};

enum class MetricAggregation : int { kInclusive = 1, kExclusive = 2, kProperty = 3 };

struct MetricRow {
  uint64_t session_id = 0;
  uint32_t node_id = 0;
  uint64_t process_id = 0;
  std::string name;  // suffix stripped
  MetricAggregation aggregation = MetricAggregation::kInclusive;
  bool is_double = false;
  int64_t int_value = 0;
  double double_value = 0;
  // A vector metric's elements (schema 11): int64 or double bits, as is_double says; then
  // int_value and double_value are 0. Empty for a scalar.
  std::vector<uint64_t> vector_bits;
};

// A process's interned scope path (context) or name, as its shim defined them.
struct ContextRow {
  uint64_t process_id = 0;
  uint32_t context_id = 0;
  uint32_t parent_context_id = 0;
  std::string name;
};

struct NameRow {
  uint64_t process_id = 0;
  uint32_t name_id = 0;
  int name_class = 0;  // record::NameClass
  std::string name;
};

// A CUDA device of a process, as its shim read it when GPU tracing started (a kDeviceInfo record).
struct DeviceRow {
  uint64_t process_id = 0;
  uint32_t device_id = 0;  // the CUDA ordinal in the process, as in GPU activity records
  std::string name;
  uint32_t arch = 0;  // compute capability major * 10 + minor
  uint32_t num_sms = 0;
  uint32_t clock_rate_khz = 0;
  uint32_t memory_clock_rate_khz = 0;
  uint32_t bus_width_bits = 0;
  uint64_t memory_bytes = 0;

  friend bool operator==(const DeviceRow&, const DeviceRow&) = default;
};

// A device of one of a session's processes, with that process's pid.
struct SessionDevice {
  uint32_t pid = 0;
  DeviceRow device;
};

// One scope instance of a trace session: its thread, node and CLOCK_MONOTONIC times. Keyed by the
// position of its exit record in the lane, so writing it again changes nothing.
struct ScopeEventRow {
  uint64_t session_id = 0;
  uint64_t process_id = 0;
  uint32_t lane = 0;
  uint64_t record_pos = 0;
  uint32_t tid = 0;
  uint32_t node_id = 0;
  uint64_t begin_ns = 0;
  uint64_t end_ns = 0;

  friend bool operator==(const ScopeEventRow&, const ScopeEventRow&) = default;
};

// One GPU activity of a trace session (kind: record::Kind 10 kernel, 11 memcpy, 12 memset); its
// node is the activity's leaf in the tree. Keyed as ScopeEventRow, by its record's position.
struct GpuEventRow {
  uint64_t session_id = 0;
  uint64_t process_id = 0;
  uint32_t lane = 0;
  uint64_t record_pos = 0;
  uint32_t node_id = 0;
  int kind = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t device_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;

  friend bool operator==(const GpuEventRow&, const GpuEventRow&) = default;
};

// One interval of an in-kernel scope in one warp, of a trace session: the intervals of one
// instrumentation buffer share its last chunk's lane and position, and are told apart by `seq`.
// The node is the scope's place under the kernel's node; `correlation_id` is the launch's (its
// GpuEventRow places the buffer in time); times are the GPU's global timer, in ns
// (daemon/instrumentation/timeline.h says how cycles become times).
struct KernelScopeEventRow {
  uint64_t session_id = 0;
  uint64_t process_id = 0;
  uint32_t lane = 0;
  uint64_t record_pos = 0;
  uint32_t seq = 0;
  uint32_t node_id = 0;
  uint32_t correlation_id = 0;
  uint32_t device_id = 0;
  uint32_t sm_id = 0;
  uint32_t block_id = 0;
  uint32_t warp_id = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t cycles = 0;

  friend bool operator==(const KernelScopeEventRow&, const KernelScopeEventRow&) = default;
};

// One NCCL collective call of any session (tree or trace), as the shim's NCCL profiler plugin
// reported it (record kind 19): node_id is the node of the scope it was called from in the
// session's tree; times are CLOCK_MONOTONIC ns. Keyed as ScopeEventRow, by its record's position.
// The texts are NCCL's own words ("AllReduce", "ncclFloat32", "RING", "LL"), printable ASCII.
struct CollectiveEventRow {
  uint64_t session_id = 0;
  uint64_t process_id = 0;
  uint32_t lane = 0;
  uint64_t record_pos = 0;
  uint32_t node_id = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t comm_hash = 0;
  uint64_t seq = 0;
  uint64_t count = 0;
  uint32_t rank = 0;
  uint32_t nranks = 0;
  std::string op;
  std::string datatype;
  std::string algorithm;
  std::string protocol;
  // CUPTI's correlation id of the kernel that carried the call (0: not known): its
  // CollectiveKernelRow has the GPU times (v14).
  uint32_t launch_correlation_id = 0;

  friend bool operator==(const CollectiveEventRow&, const CollectiveEventRow&) = default;
};

// An NCCL kernel of a session's process (v14): the GPU times of the collective calls whose
// launch_correlation_id names it. Kept for every session, tree or trace, as the calls are.
struct CollectiveKernelRow {
  uint64_t session_id = 0;
  uint64_t process_id = 0;
  uint32_t correlation_id = 0;
  uint32_t device_id = 0;
  uint64_t start_ns = 0;  // CLOCK_MONOTONIC, as the shim shifted CUPTI's times
  uint64_t end_ns = 0;

  friend bool operator==(const CollectiveKernelRow&, const CollectiveKernelRow&) = default;
};

// A cubin whose kernels were PC-sampled, as the shim sent it; CUPTI's CRC names it in the
// instruction nodes (NodeRow.cubin_crc) of every session that sampled it.
struct CubinRow {
  uint64_t crc = 0;
  std::string bytes;
};

// Where the daemon stands in one lane of a process's region.
struct LaneRow {
  uint64_t process_id = 0;
  uint32_t lane = 0;
  uint64_t read_pos = 0;       // every record before it is reflected in the store
  uint64_t dropped_seen = 0;   // the lane's drop counter when last read
  std::string corrupt_reason;  // empty while the lane is readable
  std::string decoder_state;   // opaque bytes (daemon/ingest): open scopes, session, state
};

// Everything one commit writes. Rows are upserts keyed by their ids.
struct Batch {
  std::vector<SessionRow> sessions;
  std::vector<ProcessRow> processes;
  std::vector<SessionProcessRow> session_processes;
  std::vector<NodeRow> nodes;
  std::vector<NodeStatsRow> node_stats;
  std::vector<MetricRow> metrics;
  std::vector<ContextRow> contexts;
  std::vector<NameRow> names;
  std::vector<DeviceRow> devices;
  std::vector<LaneRow> lanes;
  std::vector<ScopeEventRow> scope_events;  // inserted once: a row already stored is kept
  std::vector<GpuEventRow> gpu_events;
  std::vector<KernelScopeEventRow> kernel_scope_events;
  std::vector<CollectiveEventRow> collective_events;    // inserted once, as scope_events
  std::vector<CollectiveKernelRow> collective_kernels;  // inserted once per correlation id
  std::vector<CubinRow> cubins;                         // inserted once per CRC
};

// A session whose rows CommitBatch refused and left out of the commit, with the error that named
// the row (`writing metric_values: CHECK constraint failed: ...`).
struct RefusedSession {
  uint64_t session_id = 0;
  absl::Status why;
};

// A session's tree as stored: nodes in insertion order (parents before children), stats and
// metrics per (node, process), and the devices of the session's processes (by process, device).
struct StoredTree {
  std::vector<NodeRow> nodes;
  std::vector<NodeStatsRow> node_stats;
  std::vector<MetricRow> metrics;
  std::vector<SessionDevice> devices;
};

// A trace session's events, by process and position, with the tree's nodes to name them.
struct StoredTrace {
  std::vector<NodeRow> nodes;
  std::vector<ScopeEventRow> scope_events;
  std::vector<GpuEventRow> gpu_events;
  std::vector<KernelScopeEventRow> kernel_scope_events;
};

// A session's collective calls, with the tree's nodes to name their scopes and the NCCL kernels
// that give them GPU times.
struct StoredCollectives {
  std::vector<NodeRow> nodes;
  std::vector<CollectiveEventRow> collective_events;
  std::vector<CollectiveKernelRow> collective_kernels;
};

// What the daemon needs to resume a process after a restart.
struct StoredProcess {
  ProcessRow process;
  std::vector<ContextRow> contexts;
  std::vector<NameRow> names;
  std::vector<LaneRow> lanes;
};

class Store {
 public:
  // Opens or creates the database at `path` (WAL, synchronous=NORMAL, foreign keys on). A file
  // with a newer schema version than kSchemaVersion is refused with an error naming both
  // versions and left untouched.
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path);
  ~Store();

  // Writes `batch` in one transaction. When a row is refused (a value a column does not admit),
  // each session's rows are tried alone, the sessions whose rows are refused are left out, and the
  // rest commits: one session's bad data never fails the commit of the others, nor of the lanes'
  // positions. Returns the sessions left out, each with why. An error means nothing was
  // committed: the commit itself failed, or the refused row was no session's.
  absl::StatusOr<std::vector<RefusedSession>> CommitBatch(const Batch& batch);

  // Whether the store's path still leads to the file this Store opened: false once the file was
  // removed (with its state directory, say) or another took its place. SQLite would go on
  // writing the unlinked file, which the next start of protond never sees.
  bool IsAtItsPath() const;
  // Writes the committed database into a new file at `path` (SQLite's online backup): a store
  // whose file was removed while open is still read through its open connection.
  absl::Status CopyTo(const std::string& path);

  absl::StatusOr<std::vector<SessionRow>> ListSessions();
  absl::StatusOr<std::optional<SessionRow>> GetSession(uint64_t session_id);
  absl::StatusOr<std::vector<SessionProcessRow>> ListSessionProcesses(uint64_t session_id);
  absl::StatusOr<std::optional<ProcessRow>> GetProcess(uint64_t process_id);
  absl::StatusOr<StoredTree> LoadTree(uint64_t session_id);
  // Empty for a session that is not a trace session (or has no events yet).
  absl::StatusOr<StoredTrace> LoadTrace(uint64_t session_id);
  // A session's collective calls, by process and position, with the tree's nodes that name the
  // scopes they were called from. Empty for a session without any.
  absl::StatusOr<StoredCollectives> LoadCollectives(uint64_t session_id);
  // The cubin with CUPTI's CRC `crc`, if one was stored.
  absl::StatusOr<std::optional<std::string>> LoadCubin(uint64_t crc);
  // The non-exited process with this pid and start time, if the store knows it.
  absl::StatusOr<std::optional<StoredProcess>> FindLiveProcess(uint32_t pid,
                                                               uint64_t start_time_ticks);
  // The largest session and process ids ever stored (0 when none), so ids are never reused.
  absl::StatusOr<uint64_t> MaxSessionId();
  absl::StatusOr<uint64_t> MaxProcessId();

  // Always-on history (store_history.cc, docs/always-on.md "Retention").
  // What session `session_id`'s rows take in the file, in bytes: their number in each table
  // times that table's row size as measured with SQLite's dbstat, plus its problems' text. An
  // estimate that needs no dbstat at run time and reads only the session's own rows; 0 for a
  // session the store does not hold.
  absl::StatusOr<uint64_t> SessionStoredBytes(uint64_t session_id);
  // Deletes a stopped always-on window and every row of its own (problems, members, tree,
  // events) in one transaction; its processes, their lanes and the strings stay. NOT_FOUND for
  // an unknown session; FAILED_PRECONDITION, deleting nothing, for a session someone started by
  // hand or a window still running.
  absl::Status DeleteHistorySession(uint64_t session_id);
  // Writes `period` (one stopped always-on session of period kHour or kDay with its members,
  // tree and summary: store.h Batch's session rows only) and deletes the stopped windows or
  // periods `replaced` with every row of their own, in ONE transaction: a crash leaves either
  // the replaced sessions or the period. FAILED_PRECONDITION or NOT_FOUND, writing and deleting
  // nothing, when one of `replaced` is not a stopped window (as DeleteHistorySession refuses);
  // INVALID_ARGUMENT for rows that are not one period's.
  absl::Status ReplaceWithPeriod(const Batch& period, const std::vector<uint64_t>& replaced);
  // Keeps `summary` for its window, replacing one kept before. NOT_FOUND for an unknown session;
  // FAILED_PRECONDITION for a session someone started by hand or a window still running.
  absl::Status PutWindowSummary(const WindowSummaryRow& summary);

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace protond::store

#endif  // PROTOND_DAEMON_STORE_STORE_H_
