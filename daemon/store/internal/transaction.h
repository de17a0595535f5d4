// A SQLite transaction that rolls back unless committed, so every early return on an error path
// leaves the database as it was.
#ifndef PROTOND_DAEMON_STORE_INTERNAL_TRANSACTION_H_
#define PROTOND_DAEMON_STORE_INTERNAL_TRANSACTION_H_

#include <sqlite3.h>

#include "absl/status/status.h"

namespace protond::store::internal {

class Transaction {
 public:
  // kWrite takes the write lock at once (BEGIN IMMEDIATE), so a commit never fails half-way
  // for want of the lock; kRead (BEGIN DEFERRED) only pins one snapshot for several queries.
  enum class Kind { kRead, kWrite };

  explicit Transaction(sqlite3* db) : db_(db) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  absl::Status Begin(Kind kind);
  absl::Status Commit();

 private:
  sqlite3* db_;
  bool open_ = false;
};

}  // namespace protond::store::internal

#endif  // PROTOND_DAEMON_STORE_INTERNAL_TRANSACTION_H_
