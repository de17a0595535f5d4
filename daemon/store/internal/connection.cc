#include "daemon/store/internal/connection.h"

#include <optional>
#include <utility>

#include "common/status/status_macros.h"

namespace protond::store::internal {
namespace {

// A bound on the interned-string cache; past it the cache starts again (ids stay valid).
constexpr size_t kMaxCachedStrings = size_t{1} << 20;

}  // namespace

Connection::Connection(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

Connection::~Connection() {
  statements_.clear();  // finalize every statement first, or the close would be deferred
  sqlite3_close_v2(db_);
}

absl::StatusOr<Statement*> Connection::Prepared(absl::string_view sql) {
  auto it = statements_.find(sql);
  if (it != statements_.end()) return it->second.get();
  ASSIGN_OR_RETURN(Statement statement, Statement::Prepare(db_, sql));
  auto owned = std::make_unique<Statement>(std::move(statement));
  Statement* raw = owned.get();
  statements_.emplace(std::string(sql), std::move(owned));
  return raw;
}

absl::StatusOr<int64_t> Connection::InternString(absl::string_view value) {
  if (auto it = string_ids_.find(value); it != string_ids_.end()) return it->second;
  if (auto it = pending_string_ids_.find(value); it != pending_string_ids_.end()) {
    return it->second;
  }
  ASSIGN_OR_RETURN(Statement * select, Prepared("SELECT id FROM strings WHERE value = ?1"));
  std::optional<int64_t> found;
  RETURN_IF_ERROR(select->BindText(1, value).ForEachRow(
      [&](const Statement& row) { found = row.ColumnInt(0); }));
  if (found.has_value()) {  // not pending, so an earlier transaction committed it
    if (string_ids_.size() >= kMaxCachedStrings) string_ids_.clear();
    string_ids_.emplace(value, *found);
    return *found;
  }
  ASSIGN_OR_RETURN(Statement * insert, Prepared("INSERT INTO strings (value) VALUES (?1)"));
  RETURN_IF_ERROR(insert->BindText(1, value).Run());
  int64_t id = sqlite3_last_insert_rowid(db_);
  pending_string_ids_.emplace(value, id);
  return id;
}

void Connection::KeepPendingStrings() {
  if (string_ids_.size() + pending_string_ids_.size() > kMaxCachedStrings) string_ids_.clear();
  string_ids_.merge(pending_string_ids_);
  pending_string_ids_.clear();
}

void Connection::ForgetPendingStrings() { pending_string_ids_.clear(); }

}  // namespace protond::store::internal
