// The store's tables, each described once (internal/table.h): the fresh schema (SchemaSql), the
// commit's INSERTs and the queries' SELECTs are all made from these. docs/store-schema.md explains
// every table; internal/migrations.cc brings older files to the same tables (store_schema_test.cc
// checks that they agree).
//
// Unsigned 64-bit ids and counters are stored as the int64 with the same bits. Foreign keys are
// DEFERRABLE INITIALLY DEFERRED: a batch may list its rows in any order, and they are checked
// once, at COMMIT.
#ifndef PROTOND_DAEMON_STORE_INTERNAL_TABLES_H_
#define PROTOND_DAEMON_STORE_INTERNAL_TABLES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "daemon/store/internal/table.h"
#include "daemon/store/store.h"

namespace protond::store::internal {

// The script that creates every table at kSchemaVersion in a fresh file.
std::string SchemaSql();

// The key columns that name a session or a process, with their foreign keys.
template <typename Row>
constexpr auto SessionIdKey(uint64_t Row::*member) {
  return Col("session_id", "INTEGER NOT NULL", member).Key().References("sessions (session_id)");
}

template <typename Row>
constexpr auto ProcessIdKey(uint64_t Row::*member) {
  return Col("process_id", "INTEGER NOT NULL", member).Key().References("processes (process_id)");
}

// One column a line, as in a CREATE TABLE.
// clang-format off

// Interned strings (node, metric, context, device and name texts): each text is stored once.
// Connection::InternString writes it; no Store call reads it whole.
struct StringRow {
  int64_t id = 0;
  std::string value;
};

inline constexpr auto kStrings = MakeTable(
    "strings", Storage::kRowid, OnConflict::kKeep,
    Col("id", "INTEGER", &StringRow::id).Key(),
    Col("value", "TEXT NOT NULL UNIQUE", &StringRow::value));

absl::Status CheckSession(SessionRow& session);

// SessionRow::problems live in session_problems.
inline constexpr auto kSessions = MakeTable(
    "sessions", Storage::kRowid, OnConflict::kUpdate,
    Col("session_id", "INTEGER", &SessionRow::session_id).Key(),
    Col("name", "TEXT NOT NULL", &SessionRow::name),
    Col("uid", "INTEGER NOT NULL", &SessionRow::uid),
    Col("state", "INTEGER NOT NULL CHECK (state IN (1, 2))", &SessionRow::state),
    Col("start_time_unix_ns", "INTEGER NOT NULL", &SessionRow::start_time_unix_ns),
    Col("end_time_unix_ns", "INTEGER NOT NULL", &SessionRow::end_time_unix_ns),
    // Version 3.
    Col("data", "INTEGER NOT NULL DEFAULT 1 CHECK (data IN (1, 2))", &SessionRow::data),
    Col("clock_offset_ns", "INTEGER NOT NULL DEFAULT 0", &SessionRow::clock_offset_ns),
    // Version 4.
    Col("attached", "INTEGER NOT NULL DEFAULT 0 CHECK (attached IN (0, 1))",
        &SessionRow::attached),
    Col("stop_at_unix_ns", "INTEGER NOT NULL DEFAULT 0", &SessionRow::stop_at_unix_ns),
    // Version 5.
    Col("job", "TEXT NOT NULL DEFAULT ''", &SessionRow::job),
    Col("admits_new", "INTEGER NOT NULL DEFAULT 0 CHECK (admits_new IN (0, 1))",
        &SessionRow::admits_new),
    // Version 6.
    Col("mode", "TEXT NOT NULL DEFAULT ''", &SessionRow::mode),
    // Version 10.
    Col("always_on_window", "INTEGER NOT NULL DEFAULT 0 CHECK (always_on_window IN (0, 1))",
        &SessionRow::always_on_window),
    // Version 16.
    Col("history_period", "INTEGER NOT NULL DEFAULT 0 CHECK (history_period IN (0, 1, 2))",
        &SessionRow::period))
    .CheckedBy(CheckSession);

// A session's problems, one line each; seq keeps the order they were found in.
struct ProblemRow {
  uint64_t session_id = 0;
  int64_t seq = 0;
  std::string problem;
};

inline constexpr auto kSessionProblems = MakeTable(
    "session_problems", Storage::kWithoutRowid, OnConflict::kUpdate,
    SessionIdKey(&ProblemRow::session_id),
    Col("seq", "INTEGER NOT NULL", &ProblemRow::seq).Key(),
    Col("problem", "TEXT NOT NULL", &ProblemRow::problem));

// processes_live serves FindLiveProcess: it looks up by pid only processes that have not exited.
inline constexpr auto kProcesses = MakeTable(
    "processes", Storage::kRowid, OnConflict::kUpdate,
    Col("process_id", "INTEGER", &ProcessRow::process_id).Key(),
    Col("pid", "INTEGER NOT NULL", &ProcessRow::pid),
    Col("uid", "INTEGER NOT NULL", &ProcessRow::uid),
    Col("start_time_ticks", "INTEGER NOT NULL", &ProcessRow::start_time_ticks),
    Col("command", "TEXT NOT NULL", &ProcessRow::command),
    Col("exited", "INTEGER NOT NULL CHECK (exited IN (0, 1))", &ProcessRow::exited),
    // Version 4: the host and where the process sits in a job ('' if unset).
    Col("hostname", "TEXT NOT NULL DEFAULT ''", &ProcessRow::job, &JobRow::hostname),
    Col("rank", "TEXT NOT NULL DEFAULT ''", &ProcessRow::job, &JobRow::rank),
    Col("local_rank", "TEXT NOT NULL DEFAULT ''", &ProcessRow::job, &JobRow::local_rank),
    Col("world_size", "TEXT NOT NULL DEFAULT ''", &ProcessRow::job, &JobRow::world_size),
    Col("slurm_job_id", "TEXT NOT NULL DEFAULT ''", &ProcessRow::job, &JobRow::slurm_job_id),
    Col("slurm_step_id", "TEXT NOT NULL DEFAULT ''", &ProcessRow::job, &JobRow::slurm_step_id),
    Col("pod", "TEXT NOT NULL DEFAULT ''", &ProcessRow::job, &JobRow::pod),
    // Version 5.
    Col("pod_namespace", "TEXT NOT NULL DEFAULT ''", &ProcessRow::job, &JobRow::pod_namespace))
    .WithIndexes(
        "CREATE INDEX processes_live ON processes (pid, start_time_ticks) WHERE exited = 0");

inline constexpr auto kSessionProcesses = MakeTable(
    "session_processes", Storage::kWithoutRowid, OnConflict::kUpdate,
    SessionIdKey(&SessionProcessRow::session_id),
    ProcessIdKey(&SessionProcessRow::process_id),
    Col("records", "INTEGER NOT NULL", &SessionProcessRow::records),
    Col("dropped_records", "INTEGER NOT NULL", &SessionProcessRow::dropped_records));

absl::Status CheckNode(NodeRow& node);

// A session's call tree. Node 0 (ROOT) is implicit; node ids grow, parents before children.
inline constexpr auto kNodes = MakeTable(
    "nodes", Storage::kWithoutRowid, OnConflict::kUpdate,
    SessionIdKey(&NodeRow::session_id),
    Col("node_id", "INTEGER NOT NULL", &NodeRow::node_id).Key(),
    Col("parent_id", "INTEGER NOT NULL", &NodeRow::parent_id),
    InternedCol("name_string_id", &NodeRow::name),
    // Version 7: NodeKind, 0 a frame, 1 a SASS instruction under its source line.
    Col("kind", "INTEGER NOT NULL DEFAULT 0 CHECK (kind IN (0, 1))", &NodeRow::kind),
    // Version 8: an instruction's cubin (cubins.crc; no foreign key: the cubin may not have
    // come), 0 when not known.
    Col("cubin_crc", "INTEGER NOT NULL DEFAULT 0", &NodeRow::cubin_crc))
    .CheckedBy(CheckNode);

// What one process contributed to a node. No foreign key to nodes: a process may record at the
// implicit ROOT (node 0), which has no row.
inline constexpr auto kNodeStats = MakeTable(
    "node_stats", Storage::kWithoutRowid, OnConflict::kUpdate,
    SessionIdKey(&NodeStatsRow::session_id),
    Col("node_id", "INTEGER NOT NULL", &NodeStatsRow::node_id).Key(),
    ProcessIdKey(&NodeStatsRow::process_id),
    Col("count", "INTEGER NOT NULL", &NodeStatsRow::count),
    Col("duration_ns_sum", "INTEGER NOT NULL", &NodeStatsRow::duration_ns_sum),
    Col("duration_ns_min", "INTEGER NOT NULL", &NodeStatsRow::duration_ns_min),
    Col("duration_ns_max", "INTEGER NOT NULL", &NodeStatsRow::duration_ns_max));

absl::Status CheckMetric(MetricRow& metric);

// A metric one process recorded at a node (name suffix stripped); as node_stats, ROOT included.
inline constexpr auto kMetricValues = MakeTable(
    "metric_values", Storage::kWithoutRowid, OnConflict::kUpdate,
    SessionIdKey(&MetricRow::session_id),
    Col("node_id", "INTEGER NOT NULL", &MetricRow::node_id).Key(),
    ProcessIdKey(&MetricRow::process_id),
    InternedCol("name_string_id", &MetricRow::name).Key(),
    // MetricAggregation: inclusive, exclusive, property.
    Col("aggregation", "INTEGER NOT NULL CHECK (aggregation IN (1, 2, 3))",
        &MetricRow::aggregation),
    Col("is_double", "INTEGER NOT NULL CHECK (is_double IN (0, 1))", &MetricRow::is_double),
    Col("int_value", "INTEGER NOT NULL", &MetricRow::int_value),
    // Version 9: NULL is a NaN (SQLite stores a bound NaN as NULL), and only a double may be one.
    Col("double_value", "REAL CHECK (double_value IS NOT NULL OR is_double = 1)",
        &MetricRow::double_value),
    // Version 11: a vector metric's elements (8 bytes each); '' for a scalar.
    WordsCol("vector_value", "BLOB NOT NULL DEFAULT x''", &MetricRow::vector_bits))
    .CheckedBy(CheckMetric);

// A process's interned scope paths, as its shim defined them.
inline constexpr auto kContexts = MakeTable(
    "contexts", Storage::kWithoutRowid, OnConflict::kUpdate,
    ProcessIdKey(&ContextRow::process_id),
    Col("context_id", "INTEGER NOT NULL", &ContextRow::context_id).Key(),
    Col("parent_context_id", "INTEGER NOT NULL", &ContextRow::parent_context_id),
    InternedCol("name_string_id", &ContextRow::name));

// A process's interned names (record::NameClass in name_class), as its shim defined them.
inline constexpr auto kNames = MakeTable(
    "names", Storage::kWithoutRowid, OnConflict::kUpdate,
    ProcessIdKey(&NameRow::process_id),
    Col("name_id", "INTEGER NOT NULL", &NameRow::name_id).Key(),
    Col("name_class", "INTEGER NOT NULL", &NameRow::name_class),
    InternedCol("name_string_id", &NameRow::name));

// A process's CUDA devices, as its shim read them when GPU tracing started (version 2).
// device_id is the CUDA ordinal, as in GPU activity records; arch is major * 10 + minor.
inline constexpr auto kDevices = MakeTable(
    "devices", Storage::kWithoutRowid, OnConflict::kUpdate,
    ProcessIdKey(&DeviceRow::process_id),
    Col("device_id", "INTEGER NOT NULL", &DeviceRow::device_id).Key(),
    InternedCol("name_string_id", &DeviceRow::name),
    Col("arch", "INTEGER NOT NULL", &DeviceRow::arch),
    Col("num_sms", "INTEGER NOT NULL", &DeviceRow::num_sms),
    Col("clock_rate_khz", "INTEGER NOT NULL", &DeviceRow::clock_rate_khz),
    Col("memory_clock_rate_khz", "INTEGER NOT NULL", &DeviceRow::memory_clock_rate_khz),
    Col("bus_width_bits", "INTEGER NOT NULL", &DeviceRow::bus_width_bits),
    Col("memory_bytes", "INTEGER NOT NULL", &DeviceRow::memory_bytes));

// Where the daemon stands in each lane. A rowid table: decoder_state can be large, and WITHOUT
// ROWID suits only small rows.
inline constexpr auto kLanes = MakeTable(
    "lanes", Storage::kRowid, OnConflict::kUpdate,
    ProcessIdKey(&LaneRow::process_id),
    Col("lane", "INTEGER NOT NULL", &LaneRow::lane).Key(),
    Col("read_pos", "INTEGER NOT NULL", &LaneRow::read_pos),
    Col("dropped_seen", "INTEGER NOT NULL", &LaneRow::dropped_seen),
    Col("corrupt_reason", "TEXT NOT NULL", &LaneRow::corrupt_reason),
    BlobCol("decoder_state", "BLOB NOT NULL", &LaneRow::decoder_state));

// The events of trace sessions (data = 2), version 3. Keyed by where their record lay in its
// lane (the exit for a scope), so a batch committed again inserts nothing twice. Times are
// CLOCK_MONOTONIC ns; node_id is the event's node in the session's tree.
inline constexpr auto kScopeEvents = MakeTable(
    "scope_events", Storage::kWithoutRowid, OnConflict::kKeep,
    SessionIdKey(&ScopeEventRow::session_id),
    ProcessIdKey(&ScopeEventRow::process_id),
    Col("lane", "INTEGER NOT NULL", &ScopeEventRow::lane).Key(),
    Col("record_pos", "INTEGER NOT NULL", &ScopeEventRow::record_pos).Key(),
    Col("tid", "INTEGER NOT NULL", &ScopeEventRow::tid),
    Col("node_id", "INTEGER NOT NULL", &ScopeEventRow::node_id),
    Col("begin_ns", "INTEGER NOT NULL", &ScopeEventRow::begin_ns),
    Col("end_ns", "INTEGER NOT NULL", &ScopeEventRow::end_ns));

// kind is the record kind: 10 kernel, 11 memcpy, 12 memset.
inline constexpr auto kGpuEvents = MakeTable(
    "gpu_events", Storage::kWithoutRowid, OnConflict::kKeep,
    SessionIdKey(&GpuEventRow::session_id),
    ProcessIdKey(&GpuEventRow::process_id),
    Col("lane", "INTEGER NOT NULL", &GpuEventRow::lane).Key(),
    Col("record_pos", "INTEGER NOT NULL", &GpuEventRow::record_pos).Key(),
    Col("node_id", "INTEGER NOT NULL", &GpuEventRow::node_id),
    Col("kind", "INTEGER NOT NULL", &GpuEventRow::kind),
    Col("start_ns", "INTEGER NOT NULL", &GpuEventRow::start_ns),
    Col("end_ns", "INTEGER NOT NULL", &GpuEventRow::end_ns),
    Col("device_id", "INTEGER NOT NULL", &GpuEventRow::device_id),
    Col("stream_id", "INTEGER NOT NULL", &GpuEventRow::stream_id),
    Col("correlation_id", "INTEGER NOT NULL", &GpuEventRow::correlation_id));

// One interval of an in-kernel scope in one warp (an instrumentation buffer of a trace session);
// a buffer's intervals share its last chunk's lane and position and are told apart by seq. Times
// are the GPU's global timer; correlation_id is the launch's, whose gpu_events row places them.
inline constexpr auto kKernelScopeEvents = MakeTable(
    "kernel_scope_events", Storage::kWithoutRowid, OnConflict::kKeep,
    SessionIdKey(&KernelScopeEventRow::session_id),
    ProcessIdKey(&KernelScopeEventRow::process_id),
    Col("lane", "INTEGER NOT NULL", &KernelScopeEventRow::lane).Key(),
    Col("record_pos", "INTEGER NOT NULL", &KernelScopeEventRow::record_pos).Key(),
    Col("seq", "INTEGER NOT NULL", &KernelScopeEventRow::seq).Key(),
    Col("node_id", "INTEGER NOT NULL", &KernelScopeEventRow::node_id),
    Col("correlation_id", "INTEGER NOT NULL", &KernelScopeEventRow::correlation_id),
    Col("device_id", "INTEGER NOT NULL", &KernelScopeEventRow::device_id),
    Col("sm_id", "INTEGER NOT NULL", &KernelScopeEventRow::sm_id),
    Col("block_id", "INTEGER NOT NULL", &KernelScopeEventRow::block_id),
    Col("warp_id", "INTEGER NOT NULL", &KernelScopeEventRow::warp_id),
    Col("start_ns", "INTEGER NOT NULL", &KernelScopeEventRow::start_ns),
    Col("end_ns", "INTEGER NOT NULL", &KernelScopeEventRow::end_ns),
    Col("cycles", "INTEGER NOT NULL", &KernelScopeEventRow::cycles));

// Version 13: the NCCL collective calls of every session, tree or trace (store.h
// CollectiveEventRow), keyed like the events above. Times are CLOCK_MONOTONIC ns; node_id is the
// node of the scope the call was made from.
inline constexpr auto kCollectiveEvents = MakeTable(
    "collective_events", Storage::kWithoutRowid, OnConflict::kKeep,
    SessionIdKey(&CollectiveEventRow::session_id),
    ProcessIdKey(&CollectiveEventRow::process_id),
    Col("lane", "INTEGER NOT NULL", &CollectiveEventRow::lane).Key(),
    Col("record_pos", "INTEGER NOT NULL", &CollectiveEventRow::record_pos).Key(),
    Col("node_id", "INTEGER NOT NULL", &CollectiveEventRow::node_id),
    Col("start_ns", "INTEGER NOT NULL", &CollectiveEventRow::start_ns),
    Col("end_ns", "INTEGER NOT NULL", &CollectiveEventRow::end_ns),
    Col("comm_hash", "INTEGER NOT NULL", &CollectiveEventRow::comm_hash),
    Col("seq", "INTEGER NOT NULL", &CollectiveEventRow::seq),
    Col("count", "INTEGER NOT NULL", &CollectiveEventRow::count),
    Col("rank", "INTEGER NOT NULL", &CollectiveEventRow::rank),
    Col("nranks", "INTEGER NOT NULL", &CollectiveEventRow::nranks),
    InternedCol("op_string_id", &CollectiveEventRow::op),
    InternedCol("datatype_string_id", &CollectiveEventRow::datatype),
    InternedCol("algorithm_string_id", &CollectiveEventRow::algorithm),
    InternedCol("protocol_string_id", &CollectiveEventRow::protocol),
    Col("launch_correlation_id", "INTEGER NOT NULL DEFAULT 0",
        &CollectiveEventRow::launch_correlation_id));

// Version 14: the NCCL kernels of every session's processes (store.h CollectiveKernelRow), one
// row per kernel launch, for the GPU times of the collective calls that name it.
inline constexpr auto kCollectiveKernels = MakeTable(
    "collective_kernels", Storage::kWithoutRowid, OnConflict::kKeep,
    SessionIdKey(&CollectiveKernelRow::session_id),
    ProcessIdKey(&CollectiveKernelRow::process_id),
    Col("correlation_id", "INTEGER NOT NULL", &CollectiveKernelRow::correlation_id).Key(),
    Col("device_id", "INTEGER NOT NULL", &CollectiveKernelRow::device_id),
    Col("start_ns", "INTEGER NOT NULL", &CollectiveKernelRow::start_ns),
    Col("end_ns", "INTEGER NOT NULL", &CollectiveKernelRow::end_ns));

// Version 8: the cubins of PC-sampled modules, one row per CUPTI CRC whichever session or process
// sent it, for the text of sampled instructions (nvdisasm at query time). A rowid table: its
// rows are large. The same CRC is the same cubin: the first copy stays.
inline constexpr auto kCubins = MakeTable(
    "cubins", Storage::kRowid, OnConflict::kKeep,
    Col("crc", "INTEGER", &CubinRow::crc).Key(),
    BlobCol("bytes", "BLOB NOT NULL", &CubinRow::bytes));

// Version 12: a stopped always-on window's summary (store.h WindowSummaryRow), one row at most.
inline constexpr auto kWindowSummaries = MakeTable(
    "window_summaries", Storage::kWithoutRowid, OnConflict::kUpdate,
    SessionIdKey(&WindowSummaryRow::session_id),
    Col("gpu_time_ns", "REAL NOT NULL", &WindowSummaryRow::gpu_time_ns),
    Col("gpus_used", "INTEGER NOT NULL", &WindowSummaryRow::gpus_used),
    InternedCol("top_kernel_string_id", &WindowSummaryRow::top_kernel),
    Col("top_kernel_time_ns", "REAL NOT NULL", &WindowSummaryRow::top_kernel_time_ns),
    // Version 15: its verdict on its collective calls (store.h WindowVerdictRow).
    Col("collective_calls", "INTEGER NOT NULL DEFAULT 0", &WindowSummaryRow::verdict,
        &WindowVerdictRow::collective_calls),
    Col("judged_calls", "INTEGER NOT NULL DEFAULT 0", &WindowSummaryRow::verdict,
        &WindowVerdictRow::judged_calls),
    Col("late_rank", "INTEGER NOT NULL DEFAULT -1", &WindowSummaryRow::verdict,
        &WindowVerdictRow::late_rank),
    Col("late_pid", "INTEGER NOT NULL DEFAULT 0", &WindowSummaryRow::verdict,
        &WindowVerdictRow::late_pid),
    Col("late_mean_ns", "REAL NOT NULL DEFAULT 0", &WindowSummaryRow::verdict,
        &WindowVerdictRow::late_mean_ns),
    Col("others_wait_ns", "REAL NOT NULL DEFAULT 0", &WindowSummaryRow::verdict,
        &WindowVerdictRow::others_wait_ns),
    Col("others_wait_share", "REAL NOT NULL DEFAULT 0", &WindowSummaryRow::verdict,
        &WindowVerdictRow::others_wait_share),
    // Version 16: a period's recorded time (0 for a window).
    Col("recorded_ns", "INTEGER NOT NULL DEFAULT 0", &WindowSummaryRow::recorded_ns));

// clang-format on

}  // namespace protond::store::internal

#endif  // PROTOND_DAEMON_STORE_INTERNAL_TABLES_H_
