// The events of trace sessions: inserted with each commit (a row already stored is kept, so a
// batch committed again adds nothing), and read back in one snapshot for an export.
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

using internal::BindId;
using internal::ColumnUint32;
using internal::Connection;
using internal::DecodeNode;
using internal::kSelectNodes;
using internal::Query;
using internal::Statement;
using internal::Transaction;
using internal::UpsertAll;

// Inserts, never updates: an event already stored (a batch committed again) is kept as it is.
constexpr absl::string_view kInsertScopeEvent =
    "INSERT INTO scope_events (session_id, process_id, lane, record_pos, tid, node_id, begin_ns, "
    "end_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING";
constexpr absl::string_view kInsertGpuEvent =
    "INSERT INTO gpu_events (session_id, process_id, lane, record_pos, node_id, kind, start_ns, "
    "end_ns, device_id, stream_id, correlation_id) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT DO NOTHING";
constexpr absl::string_view kInsertKernelScopeEvent =
    "INSERT INTO kernel_scope_events (session_id, process_id, lane, record_pos, seq, node_id, "
    "correlation_id, device_id, sm_id, block_id, warp_id, start_ns, end_ns, cycles) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) ON CONFLICT DO NOTHING";
constexpr absl::string_view kSelectScopeEvents =
    "SELECT session_id, process_id, lane, record_pos, tid, node_id, begin_ns, end_ns "
    "FROM scope_events WHERE session_id = ?1 ORDER BY process_id, lane, record_pos";
constexpr absl::string_view kSelectGpuEvents =
    "SELECT session_id, process_id, lane, record_pos, node_id, kind, start_ns, end_ns, device_id, "
    "stream_id, correlation_id FROM gpu_events WHERE session_id = ?1 "
    "ORDER BY process_id, lane, record_pos";
constexpr absl::string_view kSelectKernelScopeEvents =
    "SELECT session_id, process_id, lane, record_pos, seq, node_id, correlation_id, device_id, "
    "sm_id, block_id, warp_id, start_ns, end_ns, cycles FROM kernel_scope_events "
    "WHERE session_id = ?1 "
    "ORDER BY process_id, lane, record_pos, seq";

ScopeEventRow DecodeScopeEvent(const Statement& row) {
  return ScopeEventRow{.session_id = row.ColumnUint(0),
                       .process_id = row.ColumnUint(1),
                       .lane = ColumnUint32(row, 2),
                       .record_pos = row.ColumnUint(3),
                       .tid = ColumnUint32(row, 4),
                       .node_id = ColumnUint32(row, 5),
                       .begin_ns = row.ColumnUint(6),
                       .end_ns = row.ColumnUint(7)};
}

GpuEventRow DecodeGpuEvent(const Statement& row) {
  return GpuEventRow{.session_id = row.ColumnUint(0),
                     .process_id = row.ColumnUint(1),
                     .lane = ColumnUint32(row, 2),
                     .record_pos = row.ColumnUint(3),
                     .node_id = ColumnUint32(row, 4),
                     .kind = static_cast<int>(row.ColumnInt(5)),
                     .start_ns = row.ColumnUint(6),
                     .end_ns = row.ColumnUint(7),
                     .device_id = ColumnUint32(row, 8),
                     .stream_id = ColumnUint32(row, 9),
                     .correlation_id = ColumnUint32(row, 10)};
}

KernelScopeEventRow DecodeKernelScopeEvent(const Statement& row) {
  return KernelScopeEventRow{.session_id = row.ColumnUint(0),
                             .process_id = row.ColumnUint(1),
                             .lane = ColumnUint32(row, 2),
                             .record_pos = row.ColumnUint(3),
                             .seq = ColumnUint32(row, 4),
                             .node_id = ColumnUint32(row, 5),
                             .correlation_id = ColumnUint32(row, 6),
                             .device_id = ColumnUint32(row, 7),
                             .sm_id = ColumnUint32(row, 8),
                             .block_id = ColumnUint32(row, 9),
                             .warp_id = ColumnUint32(row, 10),
                             .start_ns = row.ColumnUint(11),
                             .end_ns = row.ColumnUint(12),
                             .cycles = row.ColumnUint(13)};
}

}  // namespace

namespace internal {

absl::Status WriteEvents(Connection& connection, const Batch& batch) {
  RETURN_IF_ERROR(UpsertAll(connection, "scope_events", kInsertScopeEvent, batch.scope_events,
                            [](Statement& s, const ScopeEventRow& row) {
                              s.BindUint(1, row.session_id)
                                  .BindUint(2, row.process_id)
                                  .BindInt(3, row.lane)
                                  .BindUint(4, row.record_pos)
                                  .BindInt(5, row.tid)
                                  .BindInt(6, row.node_id)
                                  .BindUint(7, row.begin_ns)
                                  .BindUint(8, row.end_ns);
                              return absl::OkStatus();
                            }));
  RETURN_IF_ERROR(UpsertAll(connection, "kernel_scope_events", kInsertKernelScopeEvent,
                            batch.kernel_scope_events,
                            [](Statement& s, const KernelScopeEventRow& row) {
                              s.BindUint(1, row.session_id)
                                  .BindUint(2, row.process_id)
                                  .BindInt(3, row.lane)
                                  .BindUint(4, row.record_pos)
                                  .BindInt(5, row.seq)
                                  .BindInt(6, row.node_id)
                                  .BindInt(7, row.correlation_id)
                                  .BindInt(8, row.device_id)
                                  .BindInt(9, row.sm_id)
                                  .BindInt(10, row.block_id)
                                  .BindInt(11, row.warp_id)
                                  .BindUint(12, row.start_ns)
                                  .BindUint(13, row.end_ns)
                                  .BindUint(14, row.cycles);
                              return absl::OkStatus();
                            }));
  return UpsertAll(connection, "gpu_events", kInsertGpuEvent, batch.gpu_events,
                   [](Statement& s, const GpuEventRow& row) {
                     s.BindUint(1, row.session_id)
                         .BindUint(2, row.process_id)
                         .BindInt(3, row.lane)
                         .BindUint(4, row.record_pos)
                         .BindInt(5, row.node_id)
                         .BindInt(6, row.kind)
                         .BindUint(7, row.start_ns)
                         .BindUint(8, row.end_ns)
                         .BindInt(9, row.device_id)
                         .BindInt(10, row.stream_id)
                         .BindInt(11, row.correlation_id);
                     return absl::OkStatus();
                   });
}

}  // namespace internal

absl::StatusOr<StoredTrace> Store::LoadTrace(uint64_t session_id) {
  Connection& connection = impl_->connection;
  Transaction transaction(connection.db());
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kRead));
  StoredTrace trace;
  RETURN_IF_ERROR(Query(connection, kSelectNodes, BindId(session_id), DecodeNode, trace.nodes));
  RETURN_IF_ERROR(Query(connection, kSelectScopeEvents, BindId(session_id), DecodeScopeEvent,
                        trace.scope_events));
  RETURN_IF_ERROR(
      Query(connection, kSelectGpuEvents, BindId(session_id), DecodeGpuEvent, trace.gpu_events));
  RETURN_IF_ERROR(Query(connection, kSelectKernelScopeEvents, BindId(session_id),
                        DecodeKernelScopeEvent, trace.kernel_scope_events));
  RETURN_IF_ERROR(transaction.Commit());
  return trace;
}

}  // namespace protond::store
