// Schema versions of the store (PRAGMA user_version): refusing files this protond cannot read,
// creating the schema in a fresh file, and upgrading older files one version at a time.
#ifndef PROTOND_DAEMON_STORE_INTERNAL_MIGRATIONS_H_
#define PROTOND_DAEMON_STORE_INTERNAL_MIGRATIONS_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace protond::store::internal {

// PRAGMA application_id of every protond store ("PRTN"): tells our files from other SQLite files.
inline constexpr int32_t kApplicationId = 0x5052544e;

// Refuses, without writing anything, a file whose schema is newer than kSchemaVersion or that
// is some other application's database. Runs before any pragma that could write.
absl::Status CheckSchemaReadable(sqlite3* db, const std::string& path);

// Brings the schema to kSchemaVersion in one write transaction: the whole schema for a fresh
// file, the upgrades in order for an older one, nothing for a current one.
absl::Status MigrateSchema(sqlite3* db, const std::string& path);

}  // namespace protond::store::internal

#endif  // PROTOND_DAEMON_STORE_INTERNAL_MIGRATIONS_H_
