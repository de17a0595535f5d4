#include "daemon/store/internal/transaction.h"

#include "daemon/store/internal/statement.h"

namespace protond::store::internal {

Transaction::~Transaction() {
  // Some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, ...) already rolled the transaction
  // back; a ROLLBACK then would only fail with "no transaction is active".
  if (open_ && sqlite3_get_autocommit(db_) == 0) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

absl::Status Transaction::Begin(Kind kind) {
  absl::Status status = ExecSql(db_, kind == Kind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
  open_ = status.ok();
  return status;
}

absl::Status Transaction::Commit() {
  absl::Status status = ExecSql(db_, "COMMIT");
  // A failed COMMIT (SQLITE_BUSY, a deferred foreign key) leaves the transaction open: the
  // destructor rolls it back.
  if (status.ok()) open_ = false;
  return status;
}

}  // namespace protond::store::internal
