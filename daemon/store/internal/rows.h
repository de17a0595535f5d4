// Row plumbing shared by the store's writes (store_commit.cc, store_trace.cc) and reads
// (store_queries.cc, store_trace.cc): running one cached statement for many rows, and the node
// query both the tree and the trace need.
#ifndef PROTOND_DAEMON_STORE_INTERNAL_ROWS_H_
#define PROTOND_DAEMON_STORE_INTERNAL_ROWS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status/status_macros.h"
#include "daemon/store/internal/connection.h"
#include "daemon/store/internal/statement.h"
#include "daemon/store/internal/table.h"  // Query, BindId
#include "daemon/store/store.h"

namespace protond::store::internal {

// Binds `row` to the statement (interning its strings on the way; `bind` returns a Status), then
// runs it, for each row. An error names `table`.
template <typename Row, typename BindFn>
absl::Status UpsertAll(Connection& connection, absl::string_view table, absl::string_view sql,
                       const std::vector<Row>& rows, BindFn bind) {
  if (rows.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(Statement * statement, connection.Prepared(sql));
  for (const Row& row : rows) {
    absl::Status status = bind(*statement, row);
    if (status.ok()) status = statement->Run();
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat("writing ", table, ": ", status.message()));
    }
  }
  return absl::OkStatus();
}

inline uint32_t ColumnUint32(const Statement& row, int column) {
  return static_cast<uint32_t>(row.ColumnInt(column));
}

// A session's nodes in insertion order (parents first), bound with BindId(session_id).
inline constexpr absl::string_view kSelectNodes =
    "SELECT n.session_id, n.node_id, n.parent_id, s.value, n.kind, n.cubin_crc FROM nodes AS n "
    "JOIN strings AS s ON s.id = n.name_string_id WHERE n.session_id = ?1 ORDER BY n.node_id";

inline NodeRow DecodeNode(const Statement& row) {
  return NodeRow{.session_id = row.ColumnUint(0),
                 .node_id = ColumnUint32(row, 1),
                 .parent_id = ColumnUint32(row, 2),
                 .name = row.ColumnText(3),
                 .kind = row.ColumnInt(4) == static_cast<int>(NodeKind::kInstruction)
                             ? NodeKind::kInstruction
                             : NodeKind::kFrame,
                 .cubin_crc = row.ColumnUint(5)};
}

}  // namespace protond::store::internal

#endif  // PROTOND_DAEMON_STORE_INTERNAL_ROWS_H_
