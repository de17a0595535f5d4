// The store's SQLite connection with what every call on it shares: prepared statements, cached
// once, and the ids of interned strings. Used by one thread at a time, like the Store owning it.
#ifndef PROTOND_DAEMON_STORE_INTERNAL_CONNECTION_H_
#define PROTOND_DAEMON_STORE_INTERNAL_CONNECTION_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "daemon/store/internal/statement.h"

namespace protond::store::internal {

class Connection {
 public:
  // Takes ownership of `db`, an open handle (SQLite returns one even when the open failed).
  Connection(std::string path, sqlite3* db);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  sqlite3* db() const { return db_; }
  const std::string& path() const { return path_; }

  // The statement for `sql`, prepared on first use and kept for the life of the connection, so
  // a commit of many rows parses each statement once.
  absl::StatusOr<Statement*> Prepared(absl::string_view sql);

  // The id of `value` in the strings table, inserted if new. Runs inside a write transaction:
  // ids it inserts stay pending until that transaction commits or rolls back.
  absl::StatusOr<int64_t> InternString(absl::string_view value);
  void KeepPendingStrings();    // after COMMIT: the pending ids are durable
  void ForgetPendingStrings();  // after ROLLBACK: the pending ids no longer exist

 private:
  const std::string path_;
  sqlite3* const db_;
  absl::flat_hash_map<std::string, std::unique_ptr<Statement>> statements_;
  // Committed strings are never deleted or renumbered, so a cached id stays valid for good.
  absl::flat_hash_map<std::string, int64_t> string_ids_;
  absl::flat_hash_map<std::string, int64_t> pending_string_ids_;
};

}  // namespace protond::store::internal

#endif  // PROTOND_DAEMON_STORE_INTERNAL_CONNECTION_H_
