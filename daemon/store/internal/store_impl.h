// Store's private state, shared by store.cc (opening), store_commit.cc, store_queries.cc and
// store_trace.cc.
#ifndef PROTOND_DAEMON_STORE_INTERNAL_STORE_IMPL_H_
#define PROTOND_DAEMON_STORE_INTERNAL_STORE_IMPL_H_

#include <sqlite3.h>
#include <sys/types.h>

#include <string>
#include <utility>

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
// Inserts the batch's trace events (store_trace.cc), inside CommitBatch's transaction.
absl::Status WriteEvents(Connection& connection, const Batch& batch);
}  // namespace internal

}  // namespace protond::store

#endif  // PROTOND_DAEMON_STORE_INTERNAL_STORE_IMPL_H_
