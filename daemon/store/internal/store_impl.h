// Store's private state, shared by store.cc (opening), store_commit.cc, store_queries.cc and
// store_trace.cc.
#ifndef PROTOND_DAEMON_STORE_INTERNAL_STORE_IMPL_H_
#define PROTOND_DAEMON_STORE_INTERNAL_STORE_IMPL_H_

#include <sqlite3.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "daemon/store/internal/connection.h"
#include "daemon/store/store.h"

namespace protond::store {

struct Store::Impl {
  Impl(std::string path, sqlite3* db) : connection(std::move(path), db) {}
  internal::Connection connection;
  // The file opened, as stat(2) named it then: tells whether the path still leads to it.
  dev_t device = 0;
  ino_t inode = 0;
};

namespace internal {
// Appends a session's nodes in insertion order, parents first (store_queries.cc): the tree and
// the trace both read them.
absl::Status ReadNodes(Connection& connection, uint64_t session_id, std::vector<NodeRow>& nodes);
// Writes every row of `batch` as upserts inside the caller's write transaction
// (store_commit.cc): CommitBatch's writes, and a period's (store_history.cc).
absl::Status WriteBatch(Connection& connection, const Batch& batch);
}  // namespace internal

}  // namespace protond::store

#endif  // PROTOND_DAEMON_STORE_INTERNAL_STORE_IMPL_H_
