// The always-on history's share of the store (docs/always-on.md, "Retention"): what a window's
// rows take, deleting a window with all of its rows in one transaction, and replacing windows
// with the period that merged them in one transaction.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
using internal::Connection;
using internal::Statement;
using internal::Transaction;

// A table whose rows belong to one session (a session_id column leading its key), and what one of
// its rows takes in the file: measured with SQLite's dbstat (page bytes over rows) on tables
// filled in key order, as the commits fill them, and rounded up by about a sixth for pages split
// half-full. session_problems rows add their text's length.
struct SessionTable {
  absl::string_view name;
  uint64_t bytes_per_row;
};
constexpr SessionTable kSessionTables[] = {
    {"session_problems", 32},  {"session_processes", 32},   {"nodes", 24},
    {"node_stats", 40},        {"metric_values", 36},       {"scope_events", 48},
    {"gpu_events", 56},        {"kernel_scope_events", 64}, {"window_summaries", 80},
    {"collective_events", 96}, {"collective_kernels", 48},
};
// The sessions row itself, with its name.
constexpr uint64_t kSessionRowBytes = 64;

std::string SessionStoredBytesSql() {
  std::string sql = absl::StrCat("SELECT ", kSessionRowBytes,
                                 " + (SELECT coalesce(sum(length(problem)), 0) FROM "
                                 "session_problems WHERE session_id = ?1)");
  for (const SessionTable& table : kSessionTables) {
    absl::StrAppend(&sql, " + ", table.bytes_per_row, " * (SELECT count(*) FROM ", table.name,
                    " WHERE session_id = ?1)");
  }
  return absl::StrCat(sql, " FROM sessions WHERE session_id = ?1");
}

struct SessionKind {
  bool always_on_window = false;
  bool running = false;
};

// Why the session is not a stopped window, the only kind that history deletes or summarizes
// (`what`: "deleted", "summarized"); OK when it is.
absl::Status CheckStoppedWindow(Connection& connection, uint64_t session_id,
                                absl::string_view what) {
  std::vector<SessionKind> kinds;
  RETURN_IF_ERROR(internal::Query(
      connection, "SELECT always_on_window, state FROM sessions WHERE session_id = ?1",
      BindId(session_id),
      [](const Statement& row) {
        return SessionKind{row.ColumnInt(0) == 1,
                           row.ColumnInt(1) == static_cast<int>(SessionState::kRunning)};
      },
      kinds));
  if (kinds.empty())
    return absl::NotFoundError(absl::StrCat("session ", session_id, " does not exist"));
  if (!kinds.front().always_on_window) {
    return absl::FailedPreconditionError(
        absl::StrCat("session ", session_id, " was started by hand; only always-on windows are ",
                     what, " as history"));
  }
  if (kinds.front().running) {
    return absl::FailedPreconditionError(
        absl::StrCat("window ", session_id, " still runs; only stopped windows are ", what));
  }
  return absl::OkStatus();
}

absl::Status RunForSession(Connection& connection, absl::string_view sql, uint64_t session_id) {
  ASSIGN_OR_RETURN(Statement * statement, connection.Prepared(sql));
  return statement->BindUint(1, session_id).Run();
}

// Deletes a stopped window (or period) and every row of its own, inside the caller's transaction.
absl::Status DeleteStoppedWindow(Connection& connection, uint64_t session_id) {
  RETURN_IF_ERROR(CheckStoppedWindow(connection, session_id, "deleted"));
  for (const SessionTable& table : kSessionTables) {
    RETURN_IF_ERROR(RunForSession(
        connection, absl::StrCat("DELETE FROM ", table.name, " WHERE session_id = ?1"),
        session_id));
  }
  return RunForSession(connection, "DELETE FROM sessions WHERE session_id = ?1", session_id);
}

// Why `period` is not one stopped period's rows; OK when it is.
absl::Status CheckPeriodRows(const Batch& period) {
  if (period.sessions.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("a period is one session, not ", period.sessions.size()));
  }
  const SessionRow& session = period.sessions.front();
  if (!session.always_on_window || session.period == HistoryPeriod::kWindow ||
      session.state != SessionState::kStopped) {
    return absl::InvalidArgumentError(absl::StrCat(
        "session ", session.session_id, " is not a stopped always-on period (an hour or a day)"));
  }
  if (!period.processes.empty() || !period.lanes.empty() || !period.contexts.empty() ||
      !period.names.empty() || !period.devices.empty() || !period.cubins.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "period ", session.session_id, " carries process rows; a period holds only its own"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<uint64_t> Store::SessionStoredBytes(uint64_t session_id) {
  std::vector<uint64_t> bytes;
  RETURN_IF_ERROR(internal::Query(
      impl_->connection, SessionStoredBytesSql(), BindId(session_id),
      [](const Statement& row) { return row.ColumnUint(0); }, bytes));
  return bytes.empty() ? 0 : bytes.front();
}

absl::Status Store::DeleteHistorySession(uint64_t session_id) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kWrite));
  RETURN_IF_ERROR(DeleteStoppedWindow(connection, session_id));
  return transaction.Commit();
}

absl::Status Store::ReplaceWithPeriod(const Batch& period, const std::vector<uint64_t>& replaced) {
  RETURN_IF_ERROR(CheckPeriodRows(period));
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  absl::Status status = transaction.Begin(Transaction::Kind::kWrite);
  if (status.ok()) status = internal::WriteBatch(connection, period);
  const std::optional<WindowSummaryRow>& summary = period.sessions.front().window_summary;
  if (status.ok() && summary.has_value()) {
    status = internal::WriteRows<internal::kWindowSummaries>(connection, {*summary});
  }
  for (uint64_t session_id : replaced) {
    if (status.ok()) status = DeleteStoppedWindow(connection, session_id);
  }
  if (status.ok()) status = transaction.Commit();
  if (!status.ok()) {
    connection.ForgetPendingStrings();  // the transaction's destructor rolls their rows back
    return status;
  }
  connection.KeepPendingStrings();
  return absl::OkStatus();
}

absl::Status Store::PutWindowSummary(const WindowSummaryRow& summary) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kWrite));
  RETURN_IF_ERROR(CheckStoppedWindow(connection, summary.session_id, "summarized"));
  RETURN_IF_ERROR(internal::WriteRows<internal::kWindowSummaries>(connection, {summary}));
  return transaction.Commit();
}

}  // namespace protond::store
