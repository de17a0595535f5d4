// The store's reads. A query made of several statements runs in one read transaction, so it
// sees one snapshot even while another Store commits to the same file.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status/status_macros.h"
#include "daemon/store/internal/connection.h"
#include "daemon/store/internal/statement.h"
#include "daemon/store/internal/store_impl.h"
#include "daemon/store/internal/table.h"
#include "daemon/store/internal/tables.h"
#include "daemon/store/internal/transaction.h"
#include "daemon/store/store.h"

namespace protond::store {
namespace {

using internal::BindId;
using internal::BindNothing;
using internal::Connection;
using internal::ProblemRow;
using internal::Query;
using internal::ReadRow;
using internal::ReadRows;
using internal::Statement;
using internal::Transaction;

constexpr absl::string_view kMaxSessionId = "SELECT coalesce(max(session_id), 0) FROM sessions";
constexpr absl::string_view kMaxProcessId = "SELECT coalesce(max(process_id), 0) FROM processes";

// The devices of the processes that recorded into the session, each after its process's pid.
std::string SelectSessionDevicesSql() {
  const internal::TableSql devices = internal::kDevices.sql();
  return absl::StrCat(
      "SELECT processes.pid, ", internal::SelectedColumnsSql(devices),
      " FROM session_processes JOIN devices ON devices.process_id = session_processes.process_id "
      "JOIN processes ON processes.process_id = session_processes.process_id",
      internal::StringJoinsSql(devices),
      " WHERE session_processes.session_id = ?1 ORDER BY devices.process_id, devices.device_id");
}

absl::StatusOr<SessionDevice> DecodeSessionDevice(const Statement& row) {
  ASSIGN_OR_RETURN(DeviceRow device, ReadRow(internal::kDevices, row, /*first_column=*/1));
  return SessionDevice{.pid = static_cast<uint32_t>(row.ColumnInt(0)), .device = std::move(device)};
}

// Problems are stored one row each, in order.
void AttachProblems(const std::vector<ProblemRow>& problems, std::vector<SessionRow>& sessions) {
  absl::flat_hash_map<uint64_t, SessionRow*> by_id;
  for (SessionRow& session : sessions) by_id[session.session_id] = &session;
  for (const ProblemRow& problem : problems) {
    auto it = by_id.find(problem.session_id);
    if (it != by_id.end()) it->second->problems.push_back(problem.problem);
  }
}

template <typename Bind>
absl::Status ReadProblems(Connection& connection, absl::string_view rest, Bind bind,
                          std::vector<SessionRow>& sessions) {
  std::vector<ProblemRow> problems;
  RETURN_IF_ERROR(ReadRows<internal::kSessionProblems>(connection, rest, bind, problems));
  AttachProblems(problems, sessions);
  return absl::OkStatus();
}

// A stopped window's summary, at most one row each.
template <typename Bind>
absl::Status ReadWindowSummaries(Connection& connection, absl::string_view rest, Bind bind,
                                 std::vector<SessionRow>& sessions) {
  std::vector<WindowSummaryRow> summaries;
  RETURN_IF_ERROR(ReadRows<internal::kWindowSummaries>(connection, rest, bind, summaries));
  absl::flat_hash_map<uint64_t, SessionRow*> by_id;
  for (SessionRow& session : sessions) by_id[session.session_id] = &session;
  for (WindowSummaryRow& summary : summaries) {
    auto it = by_id.find(summary.session_id);
    if (it != by_id.end()) it->second->window_summary = std::move(summary);
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> QueryMax(Connection& connection, absl::string_view sql) {
  std::vector<uint64_t> max;
  RETURN_IF_ERROR(Query(
      connection, sql, BindNothing, [](const Statement& row) { return row.ColumnUint(0); }, max));
  return max.empty() ? 0 : max.front();
}

}  // namespace

namespace internal {

absl::Status ReadNodes(Connection& connection, uint64_t session_id, std::vector<NodeRow>& nodes) {
  return ReadRows<kNodes>(connection, "WHERE session_id = ?1 ORDER BY node_id", BindId(session_id),
                          nodes);
}

}  // namespace internal

absl::StatusOr<std::vector<SessionRow>> Store::ListSessions() {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  std::vector<SessionRow> sessions;
  RETURN_IF_ERROR(
      ReadRows<internal::kSessions>(connection, "ORDER BY session_id", BindNothing, sessions));
  RETURN_IF_ERROR(ReadProblems(connection, "ORDER BY session_id, seq", BindNothing, sessions));
  RETURN_IF_ERROR(ReadWindowSummaries(connection, "", BindNothing, sessions));
  RETURN_IF_ERROR(transaction.Commit());
  return sessions;
}

absl::StatusOr<std::optional<SessionRow>> Store::GetSession(uint64_t session_id) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  std::vector<SessionRow> sessions;
  RETURN_IF_ERROR(ReadRows<internal::kSessions>(connection, "WHERE session_id = ?1",
                                                BindId(session_id), sessions));
  if (sessions.empty()) return std::nullopt;
  RETURN_IF_ERROR(
      ReadProblems(connection, "WHERE session_id = ?1 ORDER BY seq", BindId(session_id), sessions));
  RETURN_IF_ERROR(
      ReadWindowSummaries(connection, "WHERE session_id = ?1", BindId(session_id), sessions));
  RETURN_IF_ERROR(transaction.Commit());
  return std::move(sessions.front());
}

absl::StatusOr<std::vector<SessionProcessRow>> Store::ListSessionProcesses(uint64_t session_id) {
  std::vector<SessionProcessRow> rows;
  RETURN_IF_ERROR(ReadRows<internal::kSessionProcesses>(
      impl_->connection, "WHERE session_id = ?1 ORDER BY process_id", BindId(session_id), rows));
  return rows;
}

absl::StatusOr<std::optional<ProcessRow>> Store::GetProcess(uint64_t process_id) {
  std::vector<ProcessRow> rows;
  RETURN_IF_ERROR(ReadRows<internal::kProcesses>(impl_->connection, "WHERE process_id = ?1",
                                                 BindId(process_id), rows));
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

absl::StatusOr<StoredTree> Store::LoadTree(uint64_t session_id) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  StoredTree tree;
  RETURN_IF_ERROR(internal::ReadNodes(connection, session_id, tree.nodes));
  RETURN_IF_ERROR(ReadRows<internal::kNodeStats>(
      connection, "WHERE session_id = ?1 ORDER BY node_id, process_id", BindId(session_id),
      tree.node_stats));
  RETURN_IF_ERROR(ReadRows<internal::kMetricValues>(
      connection, "WHERE session_id = ?1 ORDER BY node_id, process_id, name_string_id",
      BindId(session_id), tree.metrics));
  RETURN_IF_ERROR(Query(connection, SelectSessionDevicesSql(), BindId(session_id),
                        DecodeSessionDevice, tree.devices));
  RETURN_IF_ERROR(transaction.Commit());
  return tree;
}

absl::StatusOr<std::optional<std::string>> Store::LoadCubin(uint64_t crc) {
  std::vector<CubinRow> rows;
  RETURN_IF_ERROR(
      ReadRows<internal::kCubins>(impl_->connection, "WHERE crc = ?1", BindId(crc), rows));
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front().bytes);
}

absl::StatusOr<std::optional<StoredProcess>> Store::FindLiveProcess(uint32_t pid,
                                                                    uint64_t start_time_ticks) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  std::vector<ProcessRow> processes;
  // `exited = 0` spelled as in the partial index processes_live, so the index applies.
  RETURN_IF_ERROR(ReadRows<internal::kProcesses>(
      connection,
      "WHERE pid = ?1 AND start_time_ticks = ?2 AND exited = 0 ORDER BY process_id DESC LIMIT 1",
      [&](Statement& statement) { statement.BindInt(1, pid).BindUint(2, start_time_ticks); },
      processes));
  if (processes.empty()) return std::nullopt;
  StoredProcess stored;
  stored.process = std::move(processes.front());
  auto by_process = BindId(stored.process.process_id);
  RETURN_IF_ERROR(ReadRows<internal::kContexts>(
      connection, "WHERE process_id = ?1 ORDER BY context_id", by_process, stored.contexts));
  RETURN_IF_ERROR(ReadRows<internal::kNames>(connection, "WHERE process_id = ?1 ORDER BY name_id",
                                             by_process, stored.names));
  RETURN_IF_ERROR(ReadRows<internal::kLanes>(connection, "WHERE process_id = ?1 ORDER BY lane",
                                             by_process, stored.lanes));
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
