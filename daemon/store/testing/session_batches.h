// Test-only: batches of a whole stopped session (a window of protond --always-on, or one started
// by hand) with a small tree, for the tests of the history's retention.
#ifndef PROTOND_DAEMON_STORE_TESTING_SESSION_BATCHES_H_
#define PROTOND_DAEMON_STORE_TESTING_SESSION_BATCHES_H_

#include <cstdint>

#include "daemon/store/store.h"

namespace protond::store::testing {

inline constexpr uint64_t kBatchProcessId = 1;

// A stopped session that started at `start_time_unix_ns`, with one problem, one process and a
// chain of `nodes` nodes, each with its stats (count 1) and one metric (flops 5).
inline Batch StoppedSessionBatch(uint64_t session_id, bool always_on_window, uint32_t nodes,
                                 int64_t start_time_unix_ns = 0) {
  Batch batch;
  SessionRow session;
  session.session_id = session_id;
  session.name = "window pid 42";
  session.state = SessionState::kStopped;
  session.start_time_unix_ns = start_time_unix_ns;
  session.problems = {"3 dropped"};
  session.always_on_window = always_on_window;
  batch.sessions = {session};
  batch.processes = {{kBatchProcessId, 42, 1000, 777, "python train.py", false}};
  batch.session_processes = {{session_id, kBatchProcessId, 100, 0}};
  for (uint32_t node = 1; node <= nodes; ++node) {
    batch.nodes.push_back({session_id, node, node - 1, "step"});
    batch.node_stats.push_back({session_id, node, kBatchProcessId, 1, 10, 10, 10});
    batch.metrics.push_back({session_id,
                             node,
                             kBatchProcessId,
                             "flops",
                             MetricAggregation::kInclusive,
                             false,
                             5,
                             0,
                             {}});
  }
  return batch;
}

}  // namespace protond::store::testing

#endif  // PROTOND_DAEMON_STORE_TESTING_SESSION_BATCHES_H_
