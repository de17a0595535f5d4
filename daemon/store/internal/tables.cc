#include "daemon/store/internal/tables.h"

#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace protond::store::internal {

std::string SchemaSql() {
  // In the order the tables were first written; a table may name one created after it (foreign
  // keys are resolved when checked, not when declared).
  const TableSql tables[] = {kStrings.sql(),           kSessions.sql(),
                             kSessionProblems.sql(),   kProcesses.sql(),
                             kSessionProcesses.sql(),  kNodes.sql(),
                             kNodeStats.sql(),         kMetricValues.sql(),
                             kContexts.sql(),          kNames.sql(),
                             kDevices.sql(),           kLanes.sql(),
                             kScopeEvents.sql(),       kGpuEvents.sql(),
                             kKernelScopeEvents.sql(), kCubins.sql(),
                             kWindowSummaries.sql(),   kCollectiveEvents.sql(),
                             kCollectiveKernels.sql()};
  return absl::StrJoin(tables, ";\n", [](std::string* out, const TableSql& table) {
    out->append(CreateTableSql(table));
  });
}

// Enum columns have CHECK constraints, but the file is still data: a bad value is an error.
absl::Status CheckSession(SessionRow& session) {
  if (session.state != SessionState::kRunning && session.state != SessionState::kStopped) {
    return absl::DataLossError(absl::StrFormat(
        "session %d has unknown state %d", session.session_id, static_cast<int>(session.state)));
  }
  if (session.data != SessionData::kTree && session.data != SessionData::kTrace) {
    return absl::DataLossError(absl::StrFormat("session %d has unknown data %d", session.session_id,
                                               static_cast<int>(session.data)));
  }
  if (session.period != HistoryPeriod::kWindow && session.period != HistoryPeriod::kHour &&
      session.period != HistoryPeriod::kDay) {
    return absl::DataLossError(absl::StrFormat("session %d has unknown history period %d",
                                               session.session_id,
                                               static_cast<int>(session.period)));
  }
  return absl::OkStatus();
}

// Any kind but an instruction reads as a frame.
absl::Status CheckNode(NodeRow& node) {
  if (node.kind != NodeKind::kInstruction) node.kind = NodeKind::kFrame;
  return absl::OkStatus();
}

absl::Status CheckMetric(MetricRow& metric) {
  const int aggregation = static_cast<int>(metric.aggregation);
  if (aggregation < 1 || aggregation > 3) {
    return absl::DataLossError(
        absl::StrFormat("metric %s of session %d node %d has unknown aggregation %d", metric.name,
                        metric.session_id, metric.node_id, aggregation));
  }
  return absl::OkStatus();
}

}  // namespace protond::store::internal
