// Thin RAII wrappers over the SQLite C API for the store: a prepared statement that turns result
// codes into absl::Status (naming the SQL, the database file and sqlite3_errmsg), and plain SQL
// execution for pragmas and the schema script.
//
// A Statement is never left in the middle of a step: Run and ForEachRow reset it before they
// return, so a cached statement holds no read snapshot open between calls.
#ifndef PROTOND_DAEMON_STORE_INTERNAL_STATEMENT_H_
#define PROTOND_DAEMON_STORE_INTERNAL_STATEMENT_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::store::internal {

// The error for SQLite result code `rc` on `db` while doing `what` (usually the SQL): the cause
// in words that name the store ("store PATH is read-only"), then SQLite's code and message and
// the statement's start. Reads sqlite3_errmsg, so call it before any other call on `db`.
absl::Status SqliteError(sqlite3* db, int rc, absl::string_view what);

// Runs one or more SQL statements that return no rows the caller needs (pragmas, DDL).
absl::Status ExecSql(sqlite3* db, absl::string_view sql);

// Runs a statement that returns exactly one integer (for example a pragma query).
absl::StatusOr<int64_t> QueryInt(sqlite3* db, absl::string_view sql);

// Runs a statement that returns exactly one text value (for example PRAGMA journal_mode=WAL).
absl::StatusOr<std::string> QueryText(sqlite3* db, absl::string_view sql);

class Statement {
 public:
  static absl::StatusOr<Statement> Prepare(sqlite3* db, absl::string_view sql);

  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are numbered from 1, as in the SQL (?1, ?2, ...). Text and blobs are bound
  // without a copy: they must stay alive until the next Run or ForEachRow returns. A failed
  // bind is remembered and reported by that Run or ForEachRow.
  Statement& BindInt(int index, int64_t value);
  // Unsigned 64-bit values are stored as the int64 with the same bits, so they round-trip.
  Statement& BindUint(int index, uint64_t value);
  // A NaN is bound as NULL, as SQLite stores one anyway; ColumnDouble reads a NULL as a NaN.
  Statement& BindDouble(int index, double value);
  Statement& BindText(int index, absl::string_view value);
  Statement& BindBlob(int index, absl::string_view value);

  // Steps to completion, ignoring any rows, then resets.
  absl::Status Run();
  // Calls `on_row` for each row (read its columns with the Column* accessors), then resets.
  absl::Status ForEachRow(absl::FunctionRef<void(const Statement&)> on_row);

  int64_t ColumnInt(int column) const;
  uint64_t ColumnUint(int column) const;
  double ColumnDouble(int column) const;
  std::string ColumnText(int column) const;
  std::string ColumnBlob(int column) const;

 private:
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  void CheckBind(int rc, int index);
  // Resets the statement and clears its bindings (they may point at the caller's memory).
  void Reset();

  sqlite3_stmt* stmt_ = nullptr;
  absl::Status bind_status_;
};

}  // namespace protond::store::internal

#endif  // PROTOND_DAEMON_STORE_INTERNAL_STATEMENT_H_
