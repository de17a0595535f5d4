// Test-only: the schemas older protonds shipped, as they created them, for the tests that build
// old stores and upgrade them (store_migration_test.cc, store_schema_test.cc).
#ifndef PROTOND_DAEMON_STORE_INTERNAL_TEST_SCHEMAS_H_
#define PROTOND_DAEMON_STORE_INTERNAL_TEST_SCHEMAS_H_

namespace protond::store::testing {

// Schema version 1 as protond shipped it (before the devices table), without its comments.
inline constexpr char kSchemaV1[] = R"sql(
CREATE TABLE strings (
  id INTEGER PRIMARY KEY,
  value TEXT NOT NULL UNIQUE
);
CREATE TABLE sessions (
  session_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  uid INTEGER NOT NULL,
  state INTEGER NOT NULL CHECK (state IN (1, 2)),
  start_time_unix_ns INTEGER NOT NULL,
  end_time_unix_ns INTEGER NOT NULL
);
CREATE TABLE session_problems (
  session_id INTEGER NOT NULL
    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,
  seq INTEGER NOT NULL,
  problem TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TABLE processes (
  process_id INTEGER PRIMARY KEY,
  pid INTEGER NOT NULL,
  uid INTEGER NOT NULL,
  start_time_ticks INTEGER NOT NULL,
  command TEXT NOT NULL,
  exited INTEGER NOT NULL CHECK (exited IN (0, 1))
);
CREATE INDEX processes_live ON processes (pid, start_time_ticks) WHERE exited = 0;
CREATE TABLE session_processes (
  session_id INTEGER NOT NULL
    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  records INTEGER NOT NULL,
  dropped_records INTEGER NOT NULL,
  PRIMARY KEY (session_id, process_id)
) WITHOUT ROWID;
CREATE TABLE nodes (
  session_id INTEGER NOT NULL
    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,
  node_id INTEGER NOT NULL,
  parent_id INTEGER NOT NULL,
  name_string_id INTEGER NOT NULL
    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,
  PRIMARY KEY (session_id, node_id)
) WITHOUT ROWID;
CREATE TABLE node_stats (
  session_id INTEGER NOT NULL
    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,
  node_id INTEGER NOT NULL,
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  count INTEGER NOT NULL,
  duration_ns_sum INTEGER NOT NULL,
  duration_ns_min INTEGER NOT NULL,
  duration_ns_max INTEGER NOT NULL,
  PRIMARY KEY (session_id, node_id, process_id)
) WITHOUT ROWID;
CREATE TABLE metric_values (
  session_id INTEGER NOT NULL
    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,
  node_id INTEGER NOT NULL,
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  name_string_id INTEGER NOT NULL
    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,
  aggregation INTEGER NOT NULL CHECK (aggregation IN (1, 2, 3)),
  is_double INTEGER NOT NULL CHECK (is_double IN (0, 1)),
  int_value INTEGER NOT NULL,
  double_value REAL NOT NULL,
  PRIMARY KEY (session_id, node_id, process_id, name_string_id)
) WITHOUT ROWID;
CREATE TABLE contexts (
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  context_id INTEGER NOT NULL,
  parent_context_id INTEGER NOT NULL,
  name_string_id INTEGER NOT NULL
    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,
  PRIMARY KEY (process_id, context_id)
) WITHOUT ROWID;
CREATE TABLE names (
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  name_id INTEGER NOT NULL,
  name_class INTEGER NOT NULL,
  name_string_id INTEGER NOT NULL
    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,
  PRIMARY KEY (process_id, name_id)
) WITHOUT ROWID;
CREATE TABLE lanes (
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  lane INTEGER NOT NULL,
  read_pos INTEGER NOT NULL,
  dropped_seen INTEGER NOT NULL,
  corrupt_reason TEXT NOT NULL,
  decoder_state BLOB NOT NULL,
  PRIMARY KEY (process_id, lane)
);
)sql";

}  // namespace protond::store::testing

#endif  // PROTOND_DAEMON_STORE_INTERNAL_TEST_SCHEMAS_H_
