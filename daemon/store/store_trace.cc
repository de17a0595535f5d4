// The events of trace sessions, read back in one snapshot for an export, and the collective calls
// of any session. CommitBatch writes them
// (store_commit.cc): a row already stored is kept, so a batch committed again adds nothing.
#include <vector>

#include "common/status/status_macros.h"
#include "daemon/store/internal/connection.h"
#include "daemon/store/internal/store_impl.h"
#include "daemon/store/internal/table.h"
#include "daemon/store/internal/tables.h"
#include "daemon/store/internal/transaction.h"
#include "daemon/store/store.h"

namespace protond::store {

using internal::BindId;
using internal::Connection;
using internal::ReadRows;
using internal::Transaction;

absl::StatusOr<StoredTrace> Store::LoadTrace(uint64_t session_id) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  StoredTrace trace;
  RETURN_IF_ERROR(internal::ReadNodes(connection, session_id, trace.nodes));
  RETURN_IF_ERROR(ReadRows<internal::kScopeEvents>(
      connection, "WHERE session_id = ?1 ORDER BY process_id, lane, record_pos", BindId(session_id),
      trace.scope_events));
  RETURN_IF_ERROR(ReadRows<internal::kGpuEvents>(
      connection, "WHERE session_id = ?1 ORDER BY process_id, lane, record_pos", BindId(session_id),
      trace.gpu_events));
  RETURN_IF_ERROR(ReadRows<internal::kKernelScopeEvents>(
      connection, "WHERE session_id = ?1 ORDER BY process_id, lane, record_pos, seq",
      BindId(session_id), trace.kernel_scope_events));
  RETURN_IF_ERROR(transaction.Commit());
  return trace;
}

absl::StatusOr<StoredCollectives> Store::LoadCollectives(uint64_t session_id) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  StoredCollectives collectives;
  RETURN_IF_ERROR(ReadRows<internal::kCollectiveEvents>(
      connection, "WHERE session_id = ?1 ORDER BY process_id, lane, record_pos", BindId(session_id),
      collectives.collective_events));
  RETURN_IF_ERROR(ReadRows<internal::kCollectiveKernels>(
      connection, "WHERE session_id = ?1 ORDER BY process_id, correlation_id", BindId(session_id),
      collectives.collective_kernels));
  // A tree session's nodes are many and few name a collective's scope, but reading them all in
  // one query is what ReadNodes does, and a job view reads a session's collectives seldom.
  if (!collectives.collective_events.empty()) {
    RETURN_IF_ERROR(internal::ReadNodes(connection, session_id, collectives.nodes));
  }
  RETURN_IF_ERROR(transaction.Commit());
  return collectives;
}

}  // namespace protond::store
