// The store's reads. A query made of several statements runs in one read transaction, so it
// sees one snapshot even while another Store commits to the same file.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
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

using internal::BindId;
using internal::ColumnUint32;
using internal::Connection;
using internal::DecodeNode;
using internal::kSelectNodes;
using internal::Query;
using internal::Statement;
using internal::Transaction;

constexpr absl::string_view kSelectSessions =
    "SELECT session_id, name, uid, state, start_time_unix_ns, end_time_unix_ns, data, "
    "clock_offset_ns, attached, stop_at_unix_ns, job, admits_new, mode FROM sessions "
    "ORDER BY session_id";
constexpr absl::string_view kSelectSession =
    "SELECT session_id, name, uid, state, start_time_unix_ns, end_time_unix_ns, data, "
    "clock_offset_ns, attached, stop_at_unix_ns, job, admits_new, mode FROM sessions "
    "WHERE session_id = ?1";
constexpr absl::string_view kSelectCubin = "SELECT bytes FROM cubins WHERE crc = ?1";
constexpr absl::string_view kSelectAllProblems =
    "SELECT session_id, problem FROM session_problems ORDER BY session_id, seq";
constexpr absl::string_view kSelectProblems =
    "SELECT session_id, problem FROM session_problems WHERE session_id = ?1 ORDER BY seq";
constexpr absl::string_view kSelectSessionProcesses =
    "SELECT session_id, process_id, records, dropped_records FROM session_processes "
    "WHERE session_id = ?1 ORDER BY process_id";
constexpr absl::string_view kSelectProcess =
    "SELECT process_id, pid, uid, start_time_ticks, command, exited, hostname, rank, local_rank, "
    "world_size, slurm_job_id, slurm_step_id, pod, pod_namespace FROM processes "
    "WHERE process_id = ?1";
// `exited = 0` spelled as in the partial index processes_live, so the index applies.
constexpr absl::string_view kSelectLiveProcess =
    "SELECT process_id, pid, uid, start_time_ticks, command, exited, hostname, rank, local_rank, "
    "world_size, slurm_job_id, slurm_step_id, pod, pod_namespace FROM processes "
    "WHERE pid = ?1 AND start_time_ticks = ?2 AND exited = 0 ORDER BY process_id DESC LIMIT 1";
constexpr absl::string_view kSelectNodeStats =
    "SELECT session_id, node_id, process_id, count, duration_ns_sum, duration_ns_min, "
    "duration_ns_max FROM node_stats WHERE session_id = ?1 ORDER BY node_id, process_id";
constexpr absl::string_view kSelectMetrics =
    "SELECT m.session_id, m.node_id, m.process_id, s.value, m.aggregation, m.is_double, "
    "m.int_value, m.double_value FROM metric_values AS m "
    "JOIN strings AS s ON s.id = m.name_string_id WHERE m.session_id = ?1 "
    "ORDER BY m.node_id, m.process_id, m.name_string_id";
constexpr absl::string_view kSelectContexts =
    "SELECT c.process_id, c.context_id, c.parent_context_id, s.value FROM contexts AS c "
    "JOIN strings AS s ON s.id = c.name_string_id WHERE c.process_id = ?1 ORDER BY c.context_id";
constexpr absl::string_view kSelectNames =
    "SELECT n.process_id, n.name_id, n.name_class, s.value FROM names AS n "
    "JOIN strings AS s ON s.id = n.name_string_id WHERE n.process_id = ?1 ORDER BY n.name_id";
constexpr absl::string_view kSelectLanes =
    "SELECT process_id, lane, read_pos, dropped_seen, corrupt_reason, decoder_state FROM lanes "
    "WHERE process_id = ?1 ORDER BY lane";
// The devices of the processes that recorded into the session.
constexpr absl::string_view kSelectSessionDevices =
    "SELECT p.pid, d.process_id, d.device_id, s.value, d.arch, d.num_sms, d.clock_rate_khz, "
    "d.memory_clock_rate_khz, d.bus_width_bits, d.memory_bytes FROM session_processes AS sp "
    "JOIN devices AS d ON d.process_id = sp.process_id "
    "JOIN processes AS p ON p.process_id = sp.process_id "
    "JOIN strings AS s ON s.id = d.name_string_id WHERE sp.session_id = ?1 "
    "ORDER BY d.process_id, d.device_id";
constexpr absl::string_view kMaxSessionId = "SELECT coalesce(max(session_id), 0) FROM sessions";
constexpr absl::string_view kMaxProcessId = "SELECT coalesce(max(process_id), 0) FROM processes";

// Enum columns have CHECK constraints, but the file is still data: a bad value is an error.
absl::StatusOr<SessionRow> DecodeSession(const Statement& row) {
  SessionRow session;  // problems come from their own table
  session.session_id = row.ColumnUint(0);
  session.name = row.ColumnText(1);
  session.uid = ColumnUint32(row, 2);
  session.state = static_cast<SessionState>(row.ColumnInt(3));
  session.start_time_unix_ns = row.ColumnInt(4);
  session.end_time_unix_ns = row.ColumnInt(5);
  session.data = static_cast<SessionData>(row.ColumnInt(6));
  session.clock_offset_ns = row.ColumnInt(7);
  session.attached = row.ColumnInt(8) != 0;
  session.stop_at_unix_ns = row.ColumnInt(9);
  session.job = row.ColumnText(10);
  session.admits_new = row.ColumnInt(11) != 0;
  session.mode = row.ColumnText(12);
  if (session.state != SessionState::kRunning && session.state != SessionState::kStopped) {
    return absl::DataLossError(
        absl::StrFormat("session %d has unknown state %d", session.session_id, row.ColumnInt(3)));
  }
  if (session.data != SessionData::kTree && session.data != SessionData::kTrace) {
    return absl::DataLossError(
        absl::StrFormat("session %d has unknown data %d", session.session_id, row.ColumnInt(6)));
  }
  return session;
}

ProcessRow DecodeProcess(const Statement& row) {
  return {.process_id = row.ColumnUint(0),
          .pid = ColumnUint32(row, 1),
          .uid = ColumnUint32(row, 2),
          .start_time_ticks = row.ColumnUint(3),
          .command = row.ColumnText(4),
          .exited = row.ColumnInt(5) != 0,
          .job = {.hostname = row.ColumnText(6),
                  .rank = row.ColumnText(7),
                  .local_rank = row.ColumnText(8),
                  .world_size = row.ColumnText(9),
                  .slurm_job_id = row.ColumnText(10),
                  .slurm_step_id = row.ColumnText(11),
                  .pod = row.ColumnText(12),
                  .pod_namespace = row.ColumnText(13)}};
}

SessionDevice DecodeSessionDevice(const Statement& row) {
  return {.pid = ColumnUint32(row, 0),
          .device = {.process_id = row.ColumnUint(1),
                     .device_id = ColumnUint32(row, 2),
                     .name = row.ColumnText(3),
                     .arch = ColumnUint32(row, 4),
                     .num_sms = ColumnUint32(row, 5),
                     .clock_rate_khz = ColumnUint32(row, 6),
                     .memory_clock_rate_khz = ColumnUint32(row, 7),
                     .bus_width_bits = ColumnUint32(row, 8),
                     .memory_bytes = row.ColumnUint(9)}};
}

absl::StatusOr<MetricRow> DecodeMetric(const Statement& row) {
  MetricRow metric{.session_id = row.ColumnUint(0),
                   .node_id = ColumnUint32(row, 1),
                   .process_id = row.ColumnUint(2),
                   .name = row.ColumnText(3),
                   .aggregation = static_cast<MetricAggregation>(row.ColumnInt(4)),
                   .is_double = row.ColumnInt(5) != 0,
                   .int_value = row.ColumnInt(6),
                   .double_value = row.ColumnDouble(7)};
  int64_t aggregation = row.ColumnInt(4);
  if (aggregation < 1 || aggregation > 3) {
    return absl::DataLossError(
        absl::StrFormat("metric %s of session %d node %d has unknown aggregation %d", metric.name,
                        metric.session_id, metric.node_id, aggregation));
  }
  return metric;
}

void BindNothing(Statement&) {}

// Problems are stored one row each; `problem_rows` holds (session id, problem) in order.
void AttachProblems(const std::vector<std::pair<uint64_t, std::string>>& problem_rows,
                    std::vector<SessionRow>& sessions) {
  absl::flat_hash_map<uint64_t, SessionRow*> by_id;
  for (SessionRow& session : sessions) by_id[session.session_id] = &session;
  for (const auto& [session_id, problem] : problem_rows) {
    auto it = by_id.find(session_id);
    if (it != by_id.end()) it->second->problems.push_back(problem);
  }
}

template <typename Bind>
absl::Status QueryProblems(Connection& connection, absl::string_view sql, Bind bind,
                           std::vector<SessionRow>& sessions) {
  std::vector<std::pair<uint64_t, std::string>> problem_rows;
  RETURN_IF_ERROR(Query(
      connection, sql, bind,
      [](const Statement& row) { return std::make_pair(row.ColumnUint(0), row.ColumnText(1)); },
      problem_rows));
  AttachProblems(problem_rows, sessions);
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> QueryMax(Connection& connection, absl::string_view sql) {
  std::vector<uint64_t> max;
  RETURN_IF_ERROR(Query(
      connection, sql, BindNothing, [](const Statement& row) { return row.ColumnUint(0); }, max));
  return max.empty() ? 0 : max.front();
}

}  // namespace

absl::StatusOr<std::vector<SessionRow>> Store::ListSessions() {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  std::vector<SessionRow> sessions;
  RETURN_IF_ERROR(Query(connection, kSelectSessions, BindNothing, DecodeSession, sessions));
  RETURN_IF_ERROR(QueryProblems(connection, kSelectAllProblems, BindNothing, sessions));
  RETURN_IF_ERROR(transaction.Commit());
  return sessions;
}

absl::StatusOr<std::optional<SessionRow>> Store::GetSession(uint64_t session_id) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  std::vector<SessionRow> sessions;
  RETURN_IF_ERROR(Query(connection, kSelectSession, BindId(session_id), DecodeSession, sessions));
  if (sessions.empty()) return std::nullopt;
  RETURN_IF_ERROR(QueryProblems(connection, kSelectProblems, BindId(session_id), sessions));
  RETURN_IF_ERROR(transaction.Commit());
  return std::move(sessions.front());
}

absl::StatusOr<std::vector<SessionProcessRow>> Store::ListSessionProcesses(uint64_t session_id) {
  std::vector<SessionProcessRow> rows;
  RETURN_IF_ERROR(Query(
      impl_->connection, kSelectSessionProcesses, BindId(session_id),
      [](const Statement& row) {
        return SessionProcessRow{.session_id = row.ColumnUint(0),
                                 .process_id = row.ColumnUint(1),
                                 .records = row.ColumnUint(2),
                                 .dropped_records = row.ColumnUint(3)};
      },
      rows));
  return rows;
}

absl::StatusOr<std::optional<ProcessRow>> Store::GetProcess(uint64_t process_id) {
  std::vector<ProcessRow> rows;
  RETURN_IF_ERROR(
      Query(impl_->connection, kSelectProcess, BindId(process_id), DecodeProcess, rows));
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

absl::StatusOr<StoredTree> Store::LoadTree(uint64_t session_id) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  StoredTree tree;
  RETURN_IF_ERROR(Query(connection, kSelectNodes, BindId(session_id), DecodeNode, tree.nodes));
  RETURN_IF_ERROR(Query(
      connection, kSelectNodeStats, BindId(session_id),
      [](const Statement& row) {
        return NodeStatsRow{.session_id = row.ColumnUint(0),
                            .node_id = ColumnUint32(row, 1),
                            .process_id = row.ColumnUint(2),
                            .count = row.ColumnUint(3),
                            .duration_ns_sum = row.ColumnUint(4),
                            .duration_ns_min = row.ColumnUint(5),
                            .duration_ns_max = row.ColumnUint(6)};
      },
      tree.node_stats));
  RETURN_IF_ERROR(
      Query(connection, kSelectMetrics, BindId(session_id), DecodeMetric, tree.metrics));
  RETURN_IF_ERROR(Query(connection, kSelectSessionDevices, BindId(session_id), DecodeSessionDevice,
                        tree.devices));
  RETURN_IF_ERROR(transaction.Commit());
  return tree;
}

absl::StatusOr<std::optional<std::string>> Store::LoadCubin(uint64_t crc) {
  std::vector<std::string> rows;
  RETURN_IF_ERROR(Query(
      impl_->connection, kSelectCubin, BindId(crc),
      [](const Statement& row) { return row.ColumnBlob(0); }, rows));
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

absl::StatusOr<std::optional<StoredProcess>> Store::FindLiveProcess(uint32_t pid,
                                                                    uint64_t start_time_ticks) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  std::vector<ProcessRow> processes;
  RETURN_IF_ERROR(Query(
      connection, kSelectLiveProcess,
      [&](Statement& statement) { statement.BindInt(1, pid).BindUint(2, start_time_ticks); },
      DecodeProcess, processes));
  if (processes.empty()) return std::nullopt;
  StoredProcess stored;
  stored.process = std::move(processes.front());
  auto by_process = BindId(stored.process.process_id);
  RETURN_IF_ERROR(Query(
      connection, kSelectContexts, by_process,
      [](const Statement& row) {
        return ContextRow{.process_id = row.ColumnUint(0),
                          .context_id = ColumnUint32(row, 1),
                          .parent_context_id = ColumnUint32(row, 2),
                          .name = row.ColumnText(3)};
      },
      stored.contexts));
  RETURN_IF_ERROR(Query(
      connection, kSelectNames, by_process,
      [](const Statement& row) {
        return NameRow{.process_id = row.ColumnUint(0),
                       .name_id = ColumnUint32(row, 1),
                       .name_class = static_cast<int>(row.ColumnInt(2)),
                       .name = row.ColumnText(3)};
      },
      stored.names));
  RETURN_IF_ERROR(Query(
      connection, kSelectLanes, by_process,
      [](const Statement& row) {
        return LaneRow{.process_id = row.ColumnUint(0),
                       .lane = ColumnUint32(row, 1),
                       .read_pos = row.ColumnUint(2),
                       .dropped_seen = row.ColumnUint(3),
                       .corrupt_reason = row.ColumnText(4),
                       .decoder_state = row.ColumnBlob(5)};
      },
      stored.lanes));
  RETURN_IF_ERROR(transaction.Commit());
  return stored;
}

absl::StatusOr<uint64_t> Store::MaxSessionId() {
  return QueryMax(impl_->connection, kMaxSessionId);
}

absl::StatusOr<uint64_t> Store::MaxProcessId() {
  return QueryMax(impl_->connection, kMaxProcessId);
}

}  // namespace protond::store
