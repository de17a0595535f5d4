#include "daemon/store/internal/statement.h"

#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace protond::store::internal {
namespace {

// A statement is named by its start, up to its first parenthesis or line: "INSERT INTO lanes
// ...", "COMMIT". Long lists of columns and whole schema scripts would drown the message.
constexpr size_t kMaxSqlInMessage = 60;

absl::StatusCode CodeFor(int rc) {
  switch (rc & 0xff) {  // extended codes keep the primary code in their low byte
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::StatusCode::kUnavailable;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::StatusCode::kDataLoss;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
    case SQLITE_TOOBIG:
      return absl::StatusCode::kInvalidArgument;
    case SQLITE_FULL:
    case SQLITE_NOMEM:
      return absl::StatusCode::kResourceExhausted;
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return absl::StatusCode::kPermissionDenied;
    case SQLITE_CANTOPEN:
      return absl::StatusCode::kFailedPrecondition;
    default:
      return absl::StatusCode::kInternal;
  }
}

std::string StatementHead(absl::string_view sql) {
  absl::string_view head = sql.substr(0, sql.find_first_of("(\n"));
  if (head.size() > kMaxSqlInMessage) {
    const size_t last_space = head.rfind(' ', kMaxSqlInMessage);
    head = head.substr(0, last_space == absl::string_view::npos ? kMaxSqlInMessage : last_space);
  }
  head = absl::StripTrailingAsciiWhitespace(head);
  return head.size() < sql.size() ? absl::StrCat(head, " ...") : std::string(head);
}

// What went wrong with the store, in the words a user acts on; SQLite's own message follows it.
std::string PlainCause(int rc, const std::string& store, absl::string_view message) {
  switch (rc & 0xff) {
    case SQLITE_READONLY:
      return absl::StrCat(store, " is read-only");
    case SQLITE_FULL:
      return absl::StrCat(store, ": its disk is full");
    case SQLITE_IOERR:
      return absl::StrCat(store,
                          " could not be read or written: a full disk, the file size limit, "
                          "or a failing or removed disk");
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::StrCat(store, " is corrupt");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::StrCat(store, " is locked by another connection");
    case SQLITE_CANTOPEN:
      return absl::StrCat(store, " cannot be opened");
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
    case SQLITE_TOOBIG:
      return absl::StrCat(store, " refused a value");
    default:
      return absl::StrCat(store, ": ", message);
  }
}

// The one row of a one-shot statement, read by `read`.
template <typename T, typename Read>
absl::StatusOr<T> QueryOne(sqlite3* db, absl::string_view sql, Read read) {
  absl::StatusOr<Statement> statement = Statement::Prepare(db, sql);
  if (!statement.ok()) return statement.status();
  int rows = 0;
  T value{};
  absl::Status status = statement->ForEachRow([&](const Statement& row) {
    ++rows;
    value = read(row);
  });
  if (!status.ok()) return status;
  if (rows != 1) {
    return absl::InternalError(absl::StrCat("\"", sql, "\" returned ", rows, " rows, not 1"));
  }
  return value;
}

}  // namespace

absl::Status SqliteError(sqlite3* db, int rc, absl::string_view what) {
  const char* file = db != nullptr ? sqlite3_db_filename(db, "main") : nullptr;
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  // A handle whose open failed has no file name; the caller names the path then.
  const std::string store =
      file != nullptr && *file != '\0' ? absl::StrCat("store ", file) : "the store";
  return absl::Status(CodeFor(rc), absl::StrFormat("%s (sqlite error %d: %s, in \"%s\")",
                                                   PlainCause(rc, store, message), rc, message,
                                                   StatementHead(what)));
}

absl::Status ExecSql(sqlite3* db, absl::string_view sql) {
  std::string copy(sql);  // sqlite3_exec wants a NUL-terminated script
  int rc = sqlite3_exec(db, copy.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, sql);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> QueryInt(sqlite3* db, absl::string_view sql) {
  return QueryOne<int64_t>(db, sql, [](const Statement& row) { return row.ColumnInt(0); });
}

absl::StatusOr<std::string> QueryText(sqlite3* db, absl::string_view sql) {
  return QueryOne<std::string>(db, sql, [](const Statement& row) { return row.ColumnText(0); });
}

absl::StatusOr<Statement> Statement::Prepare(sqlite3* db, absl::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status error = SqliteError(db, rc, sql);
    sqlite3_finalize(stmt);
    return error;
  }
  if (stmt == nullptr) return absl::InternalError(absl::StrCat("no SQL in \"", sql, "\""));
  return Statement(stmt);
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), bind_status_(std::move(other.bind_status_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    bind_status_ = std::move(other.bind_status_);
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::CheckBind(int rc, int index) {
  if (rc == SQLITE_OK || !bind_status_.ok()) return;
  bind_status_ = SqliteError(sqlite3_db_handle(stmt_), rc,
                             absl::StrCat("bind ?", index, " of ", sqlite3_sql(stmt_)));
}

Statement& Statement::BindInt(int index, int64_t value) {
  CheckBind(sqlite3_bind_int64(stmt_, index, value), index);
  return *this;
}

Statement& Statement::BindUint(int index, uint64_t value) {
  return BindInt(index, static_cast<int64_t>(value));
}

Statement& Statement::BindDouble(int index, double value) {
  CheckBind(sqlite3_bind_double(stmt_, index, value), index);
  return *this;
}

Statement& Statement::BindText(int index, absl::string_view value) {
  CheckBind(
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_STATIC, SQLITE_UTF8),
      index);
  return *this;
}

Statement& Statement::BindBlob(int index, absl::string_view value) {
  // A zero-length blob, not NULL: the column is NOT NULL and "no state" is an empty string.
  CheckBind(value.empty()
                ? sqlite3_bind_zeroblob(stmt_, index, 0)
                : sqlite3_bind_blob64(stmt_, index, value.data(), value.size(), SQLITE_STATIC),
            index);
  return *this;
}

absl::Status Statement::Run() {
  return ForEachRow([](const Statement&) {});
}

absl::Status Statement::ForEachRow(absl::FunctionRef<void(const Statement&)> on_row) {
  if (!bind_status_.ok()) {
    absl::Status error = std::exchange(bind_status_, absl::OkStatus());
    Reset();
    return error;
  }
  int rc;
  while ((rc = sqlite3_step(stmt_)) == SQLITE_ROW) on_row(*this);
  absl::Status status = rc == SQLITE_DONE
                            ? absl::OkStatus()
                            : SqliteError(sqlite3_db_handle(stmt_), rc, sqlite3_sql(stmt_));
  Reset();
  return status;
}

void Statement::Reset() {
  // sqlite3_reset repeats the last step's error, which ForEachRow has already reported.
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }

uint64_t Statement::ColumnUint(int column) const {
  return static_cast<uint64_t>(sqlite3_column_int64(stmt_, column));
}

double Statement::ColumnDouble(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::string Statement::ColumnBlob(int column) const {
  const void* blob = sqlite3_column_blob(stmt_, column);
  if (blob == nullptr) return "";
  return std::string(static_cast<const char*>(blob),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

}  // namespace protond::store::internal
