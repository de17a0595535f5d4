// CommitBatch: every row of a batch in one write transaction, each an upsert of absolute values,
// so committing the same batch again leaves the same state (see store.h, exactly-once).
#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/status/status_macros.h"
#include "daemon/store/internal/connection.h"
#include "daemon/store/internal/rows.h"
#include "daemon/store/internal/statement.h"
#include "daemon/store/internal/store_impl.h"
#include "daemon/store/internal/transaction.h"
#include "daemon/store/store.h"

namespace protond::store {
namespace {

using internal::Connection;
using internal::Statement;
using internal::UpsertAll;

constexpr absl::string_view kUpsertSession =
    "INSERT INTO sessions (session_id, name, uid, state, start_time_unix_ns, end_time_unix_ns, "
    "data, clock_offset_ns, attached, stop_at_unix_ns, job, admits_new, mode) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
    "ON CONFLICT (session_id) DO UPDATE SET "
    "name = excluded.name, uid = excluded.uid, state = excluded.state, "
    "start_time_unix_ns = excluded.start_time_unix_ns, end_time_unix_ns = "
    "excluded.end_time_unix_ns, data = excluded.data, clock_offset_ns = excluded.clock_offset_ns, "
    "attached = excluded.attached, stop_at_unix_ns = excluded.stop_at_unix_ns, "
    "job = excluded.job, admits_new = excluded.admits_new, mode = excluded.mode";
constexpr absl::string_view kDeleteProblems = "DELETE FROM session_problems WHERE session_id = ?1";
constexpr absl::string_view kInsertProblem =
    "INSERT INTO session_problems (session_id, seq, problem) VALUES (?1, ?2, ?3)";
constexpr absl::string_view kUpsertProcess =
    "INSERT INTO processes (process_id, pid, uid, start_time_ticks, command, exited, hostname, "
    "rank, local_rank, world_size, slurm_job_id, slurm_step_id, pod, pod_namespace) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) "
    "ON CONFLICT (process_id) DO UPDATE SET "
    "pid = excluded.pid, uid = excluded.uid, start_time_ticks = excluded.start_time_ticks, "
    "command = excluded.command, exited = excluded.exited, hostname = excluded.hostname, "
    "rank = excluded.rank, local_rank = excluded.local_rank, world_size = excluded.world_size, "
    "slurm_job_id = excluded.slurm_job_id, slurm_step_id = excluded.slurm_step_id, "
    "pod = excluded.pod, pod_namespace = excluded.pod_namespace";
constexpr absl::string_view kUpsertSessionProcess =
    "INSERT INTO session_processes (session_id, process_id, records, dropped_records) "
    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (session_id, process_id) DO UPDATE SET "
    "records = excluded.records, dropped_records = excluded.dropped_records";
constexpr absl::string_view kUpsertNode =
    "INSERT INTO nodes (session_id, node_id, parent_id, name_string_id, kind, cubin_crc) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (session_id, node_id) DO UPDATE SET "
    "parent_id = excluded.parent_id, name_string_id = excluded.name_string_id, "
    "kind = excluded.kind, cubin_crc = excluded.cubin_crc";
// The same CRC is the same cubin: the first copy stays.
constexpr absl::string_view kInsertCubin =
    "INSERT INTO cubins (crc, bytes) VALUES (?1, ?2) ON CONFLICT (crc) DO NOTHING";
constexpr absl::string_view kUpsertNodeStats =
    "INSERT INTO node_stats (session_id, node_id, process_id, count, duration_ns_sum, "
    "duration_ns_min, duration_ns_max) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
    "ON CONFLICT (session_id, node_id, process_id) DO UPDATE SET count = excluded.count, "
    "duration_ns_sum = excluded.duration_ns_sum, duration_ns_min = excluded.duration_ns_min, "
    "duration_ns_max = excluded.duration_ns_max";
constexpr absl::string_view kUpsertMetric =
    "INSERT INTO metric_values (session_id, node_id, process_id, name_string_id, aggregation, "
    "is_double, int_value, double_value) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
    "ON CONFLICT (session_id, node_id, process_id, name_string_id) DO UPDATE SET "
    "aggregation = excluded.aggregation, is_double = excluded.is_double, "
    "int_value = excluded.int_value, double_value = excluded.double_value";
constexpr absl::string_view kUpsertContext =
    "INSERT INTO contexts (process_id, context_id, parent_context_id, name_string_id) "
    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (process_id, context_id) DO UPDATE SET "
    "parent_context_id = excluded.parent_context_id, name_string_id = excluded.name_string_id";
constexpr absl::string_view kUpsertName =
    "INSERT INTO names (process_id, name_id, name_class, name_string_id) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT (process_id, name_id) DO UPDATE SET "
    "name_class = excluded.name_class, name_string_id = excluded.name_string_id";
constexpr absl::string_view kUpsertDevice =
    "INSERT INTO devices (process_id, device_id, name_string_id, arch, num_sms, clock_rate_khz, "
    "memory_clock_rate_khz, bus_width_bits, memory_bytes) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (process_id, device_id) DO UPDATE SET "
    "name_string_id = excluded.name_string_id, arch = excluded.arch, num_sms = excluded.num_sms, "
    "clock_rate_khz = excluded.clock_rate_khz, "
    "memory_clock_rate_khz = excluded.memory_clock_rate_khz, "
    "bus_width_bits = excluded.bus_width_bits, memory_bytes = excluded.memory_bytes";
constexpr absl::string_view kUpsertLane =
    "INSERT INTO lanes (process_id, lane, read_pos, dropped_seen, corrupt_reason, decoder_state) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (process_id, lane) DO UPDATE SET "
    "read_pos = excluded.read_pos, dropped_seen = excluded.dropped_seen, "
    "corrupt_reason = excluded.corrupt_reason, decoder_state = excluded.decoder_state";

// The stored list is replaced, not merged: SessionRow carries all of a session's problems.
absl::Status ReplaceProblems(Connection& connection, const SessionRow& row) {
  ASSIGN_OR_RETURN(Statement * remove, connection.Prepared(kDeleteProblems));
  RETURN_IF_ERROR(remove->BindUint(1, row.session_id).Run());
  if (row.problems.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(Statement * insert, connection.Prepared(kInsertProblem));
  for (size_t seq = 0; seq < row.problems.size(); ++seq) {
    RETURN_IF_ERROR(insert->BindUint(1, row.session_id)
                        .BindInt(2, static_cast<int64_t>(seq))
                        .BindText(3, row.problems[seq])
                        .Run());
  }
  return absl::OkStatus();
}

absl::Status WriteSessions(Connection& connection, const std::vector<SessionRow>& rows) {
  RETURN_IF_ERROR(UpsertAll(connection, "sessions", kUpsertSession, rows,
                            [](Statement& s, const SessionRow& row) {
                              s.BindUint(1, row.session_id)
                                  .BindText(2, row.name)
                                  .BindInt(3, row.uid)
                                  .BindInt(4, static_cast<int>(row.state))
                                  .BindInt(5, row.start_time_unix_ns)
                                  .BindInt(6, row.end_time_unix_ns)
                                  .BindInt(7, static_cast<int>(row.data))
                                  .BindInt(8, row.clock_offset_ns)
                                  .BindInt(9, row.attached ? 1 : 0)
                                  .BindInt(10, row.stop_at_unix_ns)
                                  .BindText(11, row.job)
                                  .BindInt(12, row.admits_new ? 1 : 0)
                                  .BindText(13, row.mode);
                              return absl::OkStatus();
                            }));
  for (const SessionRow& row : rows) RETURN_IF_ERROR(ReplaceProblems(connection, row));
  return absl::OkStatus();
}

absl::Status WriteProcesses(Connection& connection, const Batch& batch) {
  RETURN_IF_ERROR(UpsertAll(connection, "processes", kUpsertProcess, batch.processes,
                            [](Statement& s, const ProcessRow& row) {
                              s.BindUint(1, row.process_id)
                                  .BindInt(2, row.pid)
                                  .BindInt(3, row.uid)
                                  .BindUint(4, row.start_time_ticks)
                                  .BindText(5, row.command)
                                  .BindInt(6, row.exited ? 1 : 0)
                                  .BindText(7, row.job.hostname)
                                  .BindText(8, row.job.rank)
                                  .BindText(9, row.job.local_rank)
                                  .BindText(10, row.job.world_size)
                                  .BindText(11, row.job.slurm_job_id)
                                  .BindText(12, row.job.slurm_step_id)
                                  .BindText(13, row.job.pod)
                                  .BindText(14, row.job.pod_namespace);
                              return absl::OkStatus();
                            }));
  return UpsertAll(connection, "session_processes", kUpsertSessionProcess, batch.session_processes,
                   [](Statement& s, const SessionProcessRow& row) {
                     s.BindUint(1, row.session_id)
                         .BindUint(2, row.process_id)
                         .BindUint(3, row.records)
                         .BindUint(4, row.dropped_records);
                     return absl::OkStatus();
                   });
}

absl::Status WriteTree(Connection& connection, const Batch& batch) {
  RETURN_IF_ERROR(UpsertAll(connection, "nodes", kUpsertNode, batch.nodes,
                            [&connection](Statement& s, const NodeRow& row) -> absl::Status {
                              ASSIGN_OR_RETURN(int64_t name, connection.InternString(row.name));
                              s.BindUint(1, row.session_id)
                                  .BindInt(2, row.node_id)
                                  .BindInt(3, row.parent_id)
                                  .BindInt(4, name)
                                  .BindInt(5, static_cast<int>(row.kind))
                                  .BindUint(6, row.cubin_crc);
                              return absl::OkStatus();
                            }));
  RETURN_IF_ERROR(UpsertAll(connection, "cubins", kInsertCubin, batch.cubins,
                            [](Statement& s, const CubinRow& row) {
                              s.BindUint(1, row.crc).BindBlob(2, row.bytes);
                              return absl::OkStatus();
                            }));
  RETURN_IF_ERROR(UpsertAll(connection, "node_stats", kUpsertNodeStats, batch.node_stats,
                            [](Statement& s, const NodeStatsRow& row) {
                              s.BindUint(1, row.session_id)
                                  .BindInt(2, row.node_id)
                                  .BindUint(3, row.process_id)
                                  .BindUint(4, row.count)
                                  .BindUint(5, row.duration_ns_sum)
                                  .BindUint(6, row.duration_ns_min)
                                  .BindUint(7, row.duration_ns_max);
                              return absl::OkStatus();
                            }));
  return UpsertAll(connection, "metric_values", kUpsertMetric, batch.metrics,
                   [&connection](Statement& s, const MetricRow& row) -> absl::Status {
                     ASSIGN_OR_RETURN(int64_t name, connection.InternString(row.name));
                     s.BindUint(1, row.session_id)
                         .BindInt(2, row.node_id)
                         .BindUint(3, row.process_id)
                         .BindInt(4, name)
                         .BindInt(5, static_cast<int>(row.aggregation))
                         .BindInt(6, row.is_double ? 1 : 0)
                         .BindInt(7, row.int_value)
                         .BindDouble(8, row.double_value);
                     return absl::OkStatus();
                   });
}

absl::Status WriteProcessState(Connection& connection, const Batch& batch) {
  RETURN_IF_ERROR(UpsertAll(connection, "contexts", kUpsertContext, batch.contexts,
                            [&connection](Statement& s, const ContextRow& row) -> absl::Status {
                              ASSIGN_OR_RETURN(int64_t name, connection.InternString(row.name));
                              s.BindUint(1, row.process_id)
                                  .BindInt(2, row.context_id)
                                  .BindInt(3, row.parent_context_id)
                                  .BindInt(4, name);
                              return absl::OkStatus();
                            }));
  RETURN_IF_ERROR(UpsertAll(connection, "names", kUpsertName, batch.names,
                            [&connection](Statement& s, const NameRow& row) -> absl::Status {
                              ASSIGN_OR_RETURN(int64_t name, connection.InternString(row.name));
                              s.BindUint(1, row.process_id)
                                  .BindInt(2, row.name_id)
                                  .BindInt(3, row.name_class)
                                  .BindInt(4, name);
                              return absl::OkStatus();
                            }));
  return UpsertAll(connection, "lanes", kUpsertLane, batch.lanes,
                   [](Statement& s, const LaneRow& row) {
                     s.BindUint(1, row.process_id)
                         .BindInt(2, row.lane)
                         .BindUint(3, row.read_pos)
                         .BindUint(4, row.dropped_seen)
                         .BindText(5, row.corrupt_reason)
                         .BindBlob(6, row.decoder_state);
                     return absl::OkStatus();
                   });
}

absl::Status WriteDevices(Connection& connection, const std::vector<DeviceRow>& rows) {
  return UpsertAll(connection, "devices", kUpsertDevice, rows,
                   [&connection](Statement& s, const DeviceRow& row) -> absl::Status {
                     ASSIGN_OR_RETURN(int64_t name, connection.InternString(row.name));
                     s.BindUint(1, row.process_id)
                         .BindInt(2, row.device_id)
                         .BindInt(3, name)
                         .BindInt(4, row.arch)
                         .BindInt(5, row.num_sms)
                         .BindInt(6, row.clock_rate_khz)
                         .BindInt(7, row.memory_clock_rate_khz)
                         .BindInt(8, row.bus_width_bits)
                         .BindUint(9, row.memory_bytes);
                     return absl::OkStatus();
                   });
}

absl::Status WriteBatch(Connection& connection, const Batch& batch) {
  RETURN_IF_ERROR(WriteSessions(connection, batch.sessions));
  RETURN_IF_ERROR(WriteProcesses(connection, batch));
  RETURN_IF_ERROR(WriteTree(connection, batch));
  RETURN_IF_ERROR(WriteDevices(connection, batch.devices));
  RETURN_IF_ERROR(internal::WriteEvents(connection, batch));
  return WriteProcessState(connection, batch);
}

// Calls `on_table` with each member of Batch whose rows belong to one session (a session_id).
template <typename OnTable>
void ForEachSessionTable(OnTable on_table) {
  on_table(&Batch::sessions);
  on_table(&Batch::session_processes);
  on_table(&Batch::nodes);
  on_table(&Batch::node_stats);
  on_table(&Batch::metrics);
  on_table(&Batch::scope_events);
  on_table(&Batch::gpu_events);
  on_table(&Batch::kernel_scope_events);
}

// Each session's rows of `batch`, as a batch of their own, by session id.
std::map<uint64_t, Batch> SplitBySession(const Batch& batch) {
  std::map<uint64_t, Batch> parts;
  ForEachSessionTable([&](auto table) {
    for (const auto& row : batch.*table) (parts[row.session_id].*table).push_back(row);
  });
  return parts;
}

Batch WithoutSessions(Batch batch, const std::vector<RefusedSession>& refused) {
  auto is_refused = [&refused](const auto& row) {
    return std::any_of(refused.begin(), refused.end(),
                       [&row](const RefusedSession& r) { return r.session_id == row.session_id; });
  };
  ForEachSessionTable([&](auto table) { std::erase_if(batch.*table, is_refused); });
  return batch;
}

// Writes `batch` in one write transaction, and commits it only if `commit`: a trial rolls back.
absl::Status WriteInTransaction(Connection& connection, const Batch& batch, bool commit) {
  internal::Transaction transaction(connection.db());
  absl::Status status = transaction.Begin(internal::Transaction::Kind::kWrite);
  if (status.ok()) status = WriteBatch(connection, batch);
  if (status.ok() && commit) status = transaction.Commit();
  if (!status.ok() || !commit) {
    connection.ForgetPendingStrings();  // the transaction's destructor rolls their rows back
    return status;
  }
  connection.KeepPendingStrings();
  return absl::OkStatus();
}

// A row refused by a constraint or for its type (kInvalidArgument) may be one session's bad data;
// any other failure (I/O, a full disk, a lock) is no session's doing.
bool IsRefusedRow(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInvalidArgument;
}

}  // namespace

absl::StatusOr<std::vector<RefusedSession>> Store::CommitBatch(const Batch& batch) {
  Connection& connection = impl_->connection;
  absl::Status status = WriteInTransaction(connection, batch, /*commit=*/true);
  if (status.ok()) return std::vector<RefusedSession>{};
  if (!IsRefusedRow(status)) return status;
  // Each session's rows alone, rolled back: those that fail so are left out of the commit. Foreign
  // keys are checked only at a COMMIT, so a session's rows alone fail only for their own values.
  std::vector<RefusedSession> refused;
  for (const auto& [session_id, rows] : SplitBySession(batch)) {
    absl::Status tried = WriteInTransaction(connection, rows, /*commit=*/false);
    if (IsRefusedRow(tried)) refused.push_back({session_id, std::move(tried)});
  }
  if (refused.empty()) return status;
  RETURN_IF_ERROR(WriteInTransaction(connection, WithoutSessions(batch, refused), /*commit=*/true));
  return refused;
}

}  // namespace protond::store
