// CommitBatch: every row of a batch in one write transaction, each an upsert of absolute values,
// so committing the same batch again leaves the same state (see store.h, exactly-once).
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

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

using internal::Connection;
using internal::ProblemRow;
using internal::Statement;
using internal::WriteBatch;
using internal::WriteRows;

constexpr absl::string_view kDeleteProblems = "DELETE FROM session_problems WHERE session_id = ?1";

// The stored list is replaced, not merged: SessionRow carries all of a session's problems.
absl::Status ReplaceProblems(Connection& connection, const SessionRow& row) {
  ASSIGN_OR_RETURN(Statement * remove, connection.Prepared(kDeleteProblems));
  RETURN_IF_ERROR(remove->BindUint(1, row.session_id).Run());
  std::vector<ProblemRow> problems;
  problems.reserve(row.problems.size());
  for (const std::string& problem : row.problems) {
    problems.push_back({row.session_id, static_cast<int64_t>(problems.size()), problem});
  }
  return WriteRows<internal::kSessionProblems>(connection, problems);
}

absl::Status WriteSessions(Connection& connection, const std::vector<SessionRow>& rows) {
  RETURN_IF_ERROR(WriteRows<internal::kSessions>(connection, rows));
  for (const SessionRow& row : rows) RETURN_IF_ERROR(ReplaceProblems(connection, row));
  return absl::OkStatus();
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
  on_table(&Batch::collective_events);
  on_table(&Batch::collective_kernels);
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

namespace internal {

absl::Status WriteBatch(Connection& connection, const Batch& batch) {
  RETURN_IF_ERROR(WriteSessions(connection, batch.sessions));
  RETURN_IF_ERROR(WriteRows<internal::kProcesses>(connection, batch.processes));
  RETURN_IF_ERROR(WriteRows<internal::kSessionProcesses>(connection, batch.session_processes));
  RETURN_IF_ERROR(WriteRows<internal::kNodes>(connection, batch.nodes));
  RETURN_IF_ERROR(WriteRows<internal::kCubins>(connection, batch.cubins));
  RETURN_IF_ERROR(WriteRows<internal::kNodeStats>(connection, batch.node_stats));
  RETURN_IF_ERROR(WriteRows<internal::kMetricValues>(connection, batch.metrics));
  RETURN_IF_ERROR(WriteRows<internal::kDevices>(connection, batch.devices));
  RETURN_IF_ERROR(WriteRows<internal::kScopeEvents>(connection, batch.scope_events));
  RETURN_IF_ERROR(WriteRows<internal::kKernelScopeEvents>(connection, batch.kernel_scope_events));
  RETURN_IF_ERROR(WriteRows<internal::kGpuEvents>(connection, batch.gpu_events));
  RETURN_IF_ERROR(WriteRows<internal::kCollectiveEvents>(connection, batch.collective_events));
  RETURN_IF_ERROR(WriteRows<internal::kCollectiveKernels>(connection, batch.collective_kernels));
  RETURN_IF_ERROR(WriteRows<internal::kContexts>(connection, batch.contexts));
  RETURN_IF_ERROR(WriteRows<internal::kNames>(connection, batch.names));
  return WriteRows<internal::kLanes>(connection, batch.lanes);
}

}  // namespace internal

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
