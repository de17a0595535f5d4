#include "daemon/store/internal/migrations.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status/status_macros.h"
#include "daemon/store/internal/statement.h"
#include "daemon/store/internal/tables.h"
#include "daemon/store/internal/transaction.h"
#include "daemon/store/store.h"

namespace protond::store::internal {
namespace {

using Upgrade = absl::Status (*)(sqlite3* db);

// Version 2: the devices table, as version 2 created it.
absl::Status UpgradeV1ToV2(sqlite3* db) {
  return ExecSql(db,
                 "CREATE TABLE devices ("
                 "  process_id INTEGER NOT NULL"
                 "    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  device_id INTEGER NOT NULL,"
                 "  name_string_id INTEGER NOT NULL"
                 "    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,"
                 "  arch INTEGER NOT NULL,"
                 "  num_sms INTEGER NOT NULL,"
                 "  clock_rate_khz INTEGER NOT NULL,"
                 "  memory_clock_rate_khz INTEGER NOT NULL,"
                 "  bus_width_bits INTEGER NOT NULL,"
                 "  memory_bytes INTEGER NOT NULL,"
                 "  PRIMARY KEY (process_id, device_id)"
                 ") WITHOUT ROWID");
}

// Version 3: trace sessions. Two columns of sessions (older sessions keep the tree only) and the
// event tables, as version 3 created them.
absl::Status UpgradeV2ToV3(sqlite3* db) {
  return ExecSql(db,
                 "ALTER TABLE sessions ADD COLUMN"
                 "  data INTEGER NOT NULL DEFAULT 1 CHECK (data IN (1, 2));"
                 "ALTER TABLE sessions ADD COLUMN clock_offset_ns INTEGER NOT NULL DEFAULT 0;"
                 "CREATE TABLE scope_events ("
                 "  session_id INTEGER NOT NULL"
                 "    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  process_id INTEGER NOT NULL"
                 "    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  lane INTEGER NOT NULL,"
                 "  record_pos INTEGER NOT NULL,"
                 "  tid INTEGER NOT NULL,"
                 "  node_id INTEGER NOT NULL,"
                 "  begin_ns INTEGER NOT NULL,"
                 "  end_ns INTEGER NOT NULL,"
                 "  PRIMARY KEY (session_id, process_id, lane, record_pos)"
                 ") WITHOUT ROWID;"
                 "CREATE TABLE gpu_events ("
                 "  session_id INTEGER NOT NULL"
                 "    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  process_id INTEGER NOT NULL"
                 "    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  lane INTEGER NOT NULL,"
                 "  record_pos INTEGER NOT NULL,"
                 "  node_id INTEGER NOT NULL,"
                 "  kind INTEGER NOT NULL,"
                 "  start_ns INTEGER NOT NULL,"
                 "  end_ns INTEGER NOT NULL,"
                 "  device_id INTEGER NOT NULL,"
                 "  stream_id INTEGER NOT NULL,"
                 "  correlation_id INTEGER NOT NULL,"
                 "  PRIMARY KEY (session_id, process_id, lane, record_pos)"
                 ") WITHOUT ROWID");
}

// Version 4: attached sessions (protonctl start) and where a process sits in a job.
absl::Status UpgradeV3ToV4(sqlite3* db) {
  return ExecSql(db,
                 "ALTER TABLE sessions ADD COLUMN"
                 "  attached INTEGER NOT NULL DEFAULT 0 CHECK (attached IN (0, 1));"
                 "ALTER TABLE sessions ADD COLUMN stop_at_unix_ns INTEGER NOT NULL DEFAULT 0;"
                 "ALTER TABLE processes ADD COLUMN hostname TEXT NOT NULL DEFAULT '';"
                 "ALTER TABLE processes ADD COLUMN rank TEXT NOT NULL DEFAULT '';"
                 "ALTER TABLE processes ADD COLUMN local_rank TEXT NOT NULL DEFAULT '';"
                 "ALTER TABLE processes ADD COLUMN world_size TEXT NOT NULL DEFAULT '';"
                 "ALTER TABLE processes ADD COLUMN slurm_job_id TEXT NOT NULL DEFAULT '';"
                 "ALTER TABLE processes ADD COLUMN slurm_step_id TEXT NOT NULL DEFAULT '';"
                 "ALTER TABLE processes ADD COLUMN pod TEXT NOT NULL DEFAULT ''");
}

// Version 5: the job a session was started for and whether it admits the job's new processes;
// a pod's namespace.
absl::Status UpgradeV4ToV5(sqlite3* db) {
  return ExecSql(db,
                 "ALTER TABLE sessions ADD COLUMN job TEXT NOT NULL DEFAULT '';"
                 "ALTER TABLE sessions ADD COLUMN"
                 "  admits_new INTEGER NOT NULL DEFAULT 0 CHECK (admits_new IN (0, 1));"
                 "ALTER TABLE processes ADD COLUMN pod_namespace TEXT NOT NULL DEFAULT ''");
}

// Version 6: the session's mode.
absl::Status UpgradeV5ToV6(sqlite3* db) {
  return ExecSql(db, "ALTER TABLE sessions ADD COLUMN mode TEXT NOT NULL DEFAULT ''");
}

// Version 7: the in-kernel scope intervals of trace sessions, and what a node stands for.
absl::Status UpgradeV6ToV7(sqlite3* db) {
  return ExecSql(db,
                 "ALTER TABLE nodes ADD COLUMN"
                 "  kind INTEGER NOT NULL DEFAULT 0 CHECK (kind IN (0, 1));"
                 "CREATE TABLE kernel_scope_events ("
                 "  session_id INTEGER NOT NULL"
                 "    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  process_id INTEGER NOT NULL"
                 "    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  lane INTEGER NOT NULL,"
                 "  record_pos INTEGER NOT NULL,"
                 "  seq INTEGER NOT NULL,"
                 "  node_id INTEGER NOT NULL,"
                 "  correlation_id INTEGER NOT NULL,"
                 "  device_id INTEGER NOT NULL,"
                 "  sm_id INTEGER NOT NULL,"
                 "  block_id INTEGER NOT NULL,"
                 "  warp_id INTEGER NOT NULL,"
                 "  start_ns INTEGER NOT NULL,"
                 "  end_ns INTEGER NOT NULL,"
                 "  cycles INTEGER NOT NULL,"
                 "  PRIMARY KEY (session_id, process_id, lane, record_pos, seq)"
                 ") WITHOUT ROWID");
}

// Version 8: the cubins of sampled modules, and which one an instruction node is in.
absl::Status UpgradeV7ToV8(sqlite3* db) {
  return ExecSql(db,
                 "ALTER TABLE nodes ADD COLUMN cubin_crc INTEGER NOT NULL DEFAULT 0;"
                 "CREATE TABLE cubins (crc INTEGER PRIMARY KEY, bytes BLOB NOT NULL)");
}

// Version 9: metric_values.double_value may be NULL, a NaN (SQLite binds a NaN as NULL, which
// the NOT NULL column refused, failing the whole commit). SQLite cannot drop a NOT NULL in place,
// so the table is built anew and its rows copied; no other table refers to it.
absl::Status UpgradeV8ToV9(sqlite3* db) {
  return ExecSql(db,
                 "CREATE TABLE metric_values_v9 ("
                 "  session_id INTEGER NOT NULL"
                 "    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  node_id INTEGER NOT NULL,"
                 "  process_id INTEGER NOT NULL"
                 "    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  name_string_id INTEGER NOT NULL"
                 "    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,"
                 "  aggregation INTEGER NOT NULL CHECK (aggregation IN (1, 2, 3)),"
                 "  is_double INTEGER NOT NULL CHECK (is_double IN (0, 1)),"
                 "  int_value INTEGER NOT NULL,"
                 "  double_value REAL CHECK (double_value IS NOT NULL OR is_double = 1),"
                 "  PRIMARY KEY (session_id, node_id, process_id, name_string_id)"
                 ") WITHOUT ROWID;"
                 "INSERT INTO metric_values_v9 SELECT session_id, node_id, process_id, "
                 "  name_string_id, aggregation, is_double, int_value, double_value "
                 "  FROM metric_values;"
                 "DROP TABLE metric_values;"
                 "ALTER TABLE metric_values_v9 RENAME TO metric_values");
}

// Version 10: whether a session is a window of protond --always-on (older ones were all started
// by someone).
absl::Status UpgradeV9ToV10(sqlite3* db) {
  return ExecSql(
      db,
      "ALTER TABLE sessions ADD COLUMN"
      "  always_on_window INTEGER NOT NULL DEFAULT 0 CHECK (always_on_window IN (0, 1))");
}

absl::Status UpgradeV10ToV11(sqlite3* db) {
  return ExecSql(db, "ALTER TABLE metric_values ADD COLUMN vector_value BLOB NOT NULL DEFAULT x''");
}

// Version 12: the summaries of stopped always-on windows. The windows stored before have none
// yet: the summary needs the call tree as the daemon builds it (daemon/query), which the store
// does not do; protond computes theirs after it opens the file (docs/always-on.md).
absl::Status UpgradeV11ToV12(sqlite3* db) {
  return ExecSql(db,
                 "CREATE TABLE window_summaries ("
                 "  session_id INTEGER NOT NULL PRIMARY KEY"
                 "    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  gpu_time_ns REAL NOT NULL,"
                 "  gpus_used INTEGER NOT NULL,"
                 "  top_kernel_string_id INTEGER NOT NULL"
                 "    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,"
                 "  top_kernel_time_ns REAL NOT NULL"
                 ") WITHOUT ROWID");
}

// Version 13: the NCCL collective calls of every session (record kind 19). Older sessions have
// none: no shim wrote them.
absl::Status UpgradeV12ToV13(sqlite3* db) {
  return ExecSql(db,
                 "CREATE TABLE collective_events ("
                 "  session_id INTEGER NOT NULL"
                 "    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  process_id INTEGER NOT NULL"
                 "    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  lane INTEGER NOT NULL,"
                 "  record_pos INTEGER NOT NULL,"
                 "  node_id INTEGER NOT NULL,"
                 "  start_ns INTEGER NOT NULL,"
                 "  end_ns INTEGER NOT NULL,"
                 "  comm_hash INTEGER NOT NULL,"
                 "  seq INTEGER NOT NULL,"
                 "  count INTEGER NOT NULL,"
                 "  rank INTEGER NOT NULL,"
                 "  nranks INTEGER NOT NULL,"
                 "  op_string_id INTEGER NOT NULL"
                 "    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,"
                 "  datatype_string_id INTEGER NOT NULL"
                 "    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,"
                 "  algorithm_string_id INTEGER NOT NULL"
                 "    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,"
                 "  protocol_string_id INTEGER NOT NULL"
                 "    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,"
                 "  PRIMARY KEY (session_id, process_id, lane, record_pos)"
                 ") WITHOUT ROWID");
}

// Version 14: each collective call's kernel (its CUPTI correlation id) and the NCCL kernels'
// GPU times. Older calls name no kernel: no shim before record format 11 said it.
absl::Status UpgradeV13ToV14(sqlite3* db) {
  return ExecSql(db,
                 "ALTER TABLE collective_events ADD COLUMN"
                 "  launch_correlation_id INTEGER NOT NULL DEFAULT 0;"
                 "CREATE TABLE collective_kernels ("
                 "  session_id INTEGER NOT NULL"
                 "    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  process_id INTEGER NOT NULL"
                 "    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,"
                 "  correlation_id INTEGER NOT NULL,"
                 "  device_id INTEGER NOT NULL,"
                 "  start_ns INTEGER NOT NULL,"
                 "  end_ns INTEGER NOT NULL,"
                 "  PRIMARY KEY (session_id, process_id, correlation_id)"
                 ") WITHOUT ROWID");
}

// Version 15: each window summary's verdict on the window's collective calls. The windows
// summarized before have none (collective_calls 0), and keep none: their summary is not made
// again.
absl::Status UpgradeV14ToV15(sqlite3* db) {
  return ExecSql(db,
                 "ALTER TABLE window_summaries ADD COLUMN"
                 "  collective_calls INTEGER NOT NULL DEFAULT 0;"
                 "ALTER TABLE window_summaries ADD COLUMN judged_calls INTEGER NOT NULL DEFAULT 0;"
                 "ALTER TABLE window_summaries ADD COLUMN late_rank INTEGER NOT NULL DEFAULT -1;"
                 "ALTER TABLE window_summaries ADD COLUMN late_pid INTEGER NOT NULL DEFAULT 0;"
                 "ALTER TABLE window_summaries ADD COLUMN late_mean_ns REAL NOT NULL DEFAULT 0;"
                 "ALTER TABLE window_summaries ADD COLUMN others_wait_ns REAL NOT NULL DEFAULT 0;"
                 "ALTER TABLE window_summaries ADD COLUMN"
                 "  others_wait_share REAL NOT NULL DEFAULT 0");
}

// Version 16: always-on periods, the windows of an hour or a day merged into one session. The
// sessions stored before are all windows or sessions started by hand (history_period 0), and
// their summaries a window's (recorded_ns 0: its own length).
absl::Status UpgradeV15ToV16(sqlite3* db) {
  return ExecSql(db,
                 "ALTER TABLE sessions ADD COLUMN"
                 "  history_period INTEGER NOT NULL DEFAULT 0 CHECK (history_period IN (0, 1, 2));"
                 "ALTER TABLE window_summaries ADD COLUMN recorded_ns INTEGER NOT NULL DEFAULT 0");
}

// kUpgrades[v - 1] upgrades schema version v to v + 1, inside MigrateSchema's transaction. A
// schema change adds its function here and makes the same change in internal/tables.h, whose
// tables a fresh file gets directly at the newest version. The upgrades spell their tables out
// rather than taking them from tables.h: what version v created must not change when a later
// version changes the table. store_schema_test.cc checks that both give the same tables.
constexpr std::array<Upgrade, kSchemaVersion - 1> kUpgrades = {
    UpgradeV1ToV2,   UpgradeV2ToV3,   UpgradeV3ToV4,   UpgradeV4ToV5,   UpgradeV5ToV6,
    UpgradeV6ToV7,   UpgradeV7ToV8,   UpgradeV8ToV9,   UpgradeV9ToV10,  UpgradeV10ToV11,
    UpgradeV11ToV12, UpgradeV12ToV13, UpgradeV13ToV14, UpgradeV14ToV15, UpgradeV15ToV16};

struct Versions {
  int64_t user_version = 0;
  int64_t application_id = 0;
  int64_t tables = 0;  // schema objects of any kind, so "empty" means really empty
};

absl::StatusOr<Versions> ReadVersions(sqlite3* db) {
  Versions versions;
  // user_version first: on a file that is not a database this is the read that says so.
  ASSIGN_OR_RETURN(versions.user_version, QueryInt(db, "PRAGMA user_version"));
  ASSIGN_OR_RETURN(versions.application_id, QueryInt(db, "PRAGMA application_id"));
  ASSIGN_OR_RETURN(versions.tables, QueryInt(db, "SELECT count(*) FROM sqlite_schema"));
  return versions;
}

absl::Status CheckVersions(const Versions& versions, const std::string& path) {
  if (versions.user_version > kSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "store %s has schema version %d, newer than this protond's %d; use a newer protond", path,
        versions.user_version, kSchemaVersion));
  }
  if (versions.user_version < 0 ||
      (versions.user_version > 0 && versions.application_id != kApplicationId)) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "store %s is another application's SQLite database (application_id %#x, user_version "
        "%d), not a protond store",
        path, versions.application_id, versions.user_version));
  }
  if (versions.user_version == 0 && versions.tables > 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "store %s is a SQLite database with %d schema objects but no protond schema version; "
        "refusing to add tables to it",
        path, versions.tables));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckSchemaReadable(sqlite3* db, const std::string& path) {
  ASSIGN_OR_RETURN(Versions versions, ReadVersions(db));
  return CheckVersions(versions, path);
}

absl::Status MigrateSchema(sqlite3* db, const std::string& path) {
  // The common case, a current file, needs no write lock: readers open without waiting for the
  // writer's commit.
  ASSIGN_OR_RETURN(Versions before, ReadVersions(db));
  if (before.user_version == kSchemaVersion) return CheckVersions(before, path);

  Transaction transaction(db);
  RETURN_IF_ERROR(transaction.Begin(Transaction::Kind::kWrite));
  // Read again under the write lock: another process may have created or upgraded it since.
  ASSIGN_OR_RETURN(Versions versions, ReadVersions(db));
  RETURN_IF_ERROR(CheckVersions(versions, path));
  if (versions.user_version == kSchemaVersion) return absl::OkStatus();
  if (versions.user_version == 0) {
    RETURN_IF_ERROR(ExecSql(db, SchemaSql()));
  } else {
    for (int64_t version = versions.user_version; version < kSchemaVersion; ++version) {
      RETURN_IF_ERROR(kUpgrades[version - 1](db));
    }
  }
  RETURN_IF_ERROR(ExecSql(db, absl::StrCat("PRAGMA user_version = ", kSchemaVersion,
                                           "; PRAGMA application_id = ", kApplicationId)));
  return transaction.Commit();
}

}  // namespace protond::store::internal
