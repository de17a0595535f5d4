// Opening a store: the file checks, the pragmas, the schema. CommitBatch is in store_commit.cc,
// the queries in store_queries.cc, the shared connection state in internal/connection.h.
#include "daemon/store/store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status/status_macros.h"
#include "daemon/store/internal/migrations.h"
#include "daemon/store/internal/statement.h"
#include "daemon/store/internal/store_impl.h"

namespace protond::store {
namespace {

// How long a call waits for another connection's lock (the writer's commit, a checkpoint)
// before it fails with SQLITE_BUSY.
constexpr int kBusyTimeoutMs = 5000;

// SQLite would treat a short non-empty file as an empty database and overwrite it, and reports
// a long one only as "file is not a database": check the magic ourselves so the error is clear
// and a stranger's file is never written.
absl::Status CheckSqliteHeader(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::OkStatus();  // absent (SQLite creates it) or SQLite reports why
  static constexpr char kMagic[] = "SQLite format 3";  // 16 bytes with the NUL
  char header[sizeof(kMagic)] = {};
  ssize_t got = read(fd, header, sizeof(header));
  close(fd);
  if (got == 0) return absl::OkStatus();  // an empty file is an empty database
  if (got != static_cast<ssize_t>(sizeof(header)) ||
      std::memcmp(header, kMagic, sizeof(kMagic)) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "store %s is not a SQLite database (it does not start with \"SQLite format 3\")", path));
  }
  return absl::OkStatus();
}

absl::Status EnableWal(sqlite3* db, const std::string& path) {
  ASSIGN_OR_RETURN(std::string mode, internal::QueryText(db, "PRAGMA journal_mode = WAL"));
  if (mode != "wal") {
    return absl::FailedPreconditionError(absl::StrFormat(
        "store %s cannot use write-ahead logging (journal mode stays \"%s\")", path, mode));
  }
  return absl::OkStatus();
}

absl::Status Configure(sqlite3* db, const std::string& path) {
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  // Before anything that could write (even the journal mode, which lives in the file header).
  absl::Status readable = internal::CheckSchemaReadable(db, path);
  if (readable.code() == absl::StatusCode::kDataLoss) {
    return absl::DataLossError(absl::StrFormat(
        "store %s is not a SQLite database or is corrupt: %s", path, readable.message()));
  }
  RETURN_IF_ERROR(readable);
  RETURN_IF_ERROR(EnableWal(db, path));
  // NORMAL in WAL mode: a commit survives a crash of the process; a power loss may lose the
  // last commits but never corrupts the file.
  RETURN_IF_ERROR(internal::ExecSql(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON"));
  return internal::MigrateSchema(db, path);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& path) {
  RETURN_IF_ERROR(CheckSqliteHeader(path));
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  // SQLite returns a handle even when the open fails; Impl closes it either way.
  auto impl = std::make_unique<Impl>(path, db);
  if (rc != SQLITE_OK) {
    absl::Status error = internal::SqliteError(db, rc, "open");
    return absl::Status(error.code(),
                        absl::StrCat("cannot open store ", path, ": ", error.message()));
  }
  // SQLite opens a file it may not write read-only without a word; every commit would fail.
  if (sqlite3_db_readonly(db, "main") == 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("store ", path,
                     " is read-only; protond must write it: make it writable by protond's user, "
                     "or give protond another --state-dir"));
  }
  RETURN_IF_ERROR(Configure(db, path));
  struct stat opened;
  if (stat(path.c_str(), &opened) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("store ", path, " vanished as it was opened"));
  }
  impl->device = opened.st_dev;
  impl->inode = opened.st_ino;
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

bool Store::IsAtItsPath() const {
  struct stat now;
  return stat(impl_->connection.path().c_str(), &now) == 0 && now.st_dev == impl_->device &&
         now.st_ino == impl_->inode;
}

absl::Status Store::CopyTo(const std::string& path) {
  sqlite3* copy = nullptr;
  int rc =
      sqlite3_open_v2(path.c_str(), &copy,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  absl::Status copied;
  if (rc == SQLITE_OK) {
    sqlite3_backup* backup = sqlite3_backup_init(copy, "main", impl_->connection.db(), "main");
    if (backup == nullptr) {
      copied = internal::SqliteError(copy, sqlite3_errcode(copy), "backup");
    } else {
      sqlite3_backup_step(backup, -1);  // all pages at once: the source is this thread's
      rc = sqlite3_backup_finish(backup);
      if (rc != SQLITE_OK) copied = internal::SqliteError(copy, rc, "backup");
    }
  } else {
    copied = internal::SqliteError(copy, rc, "open");
  }
  sqlite3_close_v2(copy);
  if (copied.ok()) return copied;
  return absl::Status(copied.code(),
                      absl::StrCat("cannot copy the store into ", path, ": ", copied.message()));
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Store::~Store() = default;

}  // namespace protond::store
