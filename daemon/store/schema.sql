-- protond store schema, version 9 (store.h: kSchemaVersion). Applied to a fresh database in one
-- transaction, which then sets PRAGMA user_version and application_id. Older stores are brought
-- here by internal/migrations.cc; docs/store-schema.md explains every table.
--
-- Unsigned 64-bit ids and counters are stored as the int64 with the same bits.
-- Foreign keys are DEFERRABLE INITIALLY DEFERRED: a batch may list its rows in any order, and
-- they are checked once, at COMMIT.

-- Interned strings (node, metric, context and name texts): each text is stored once.
CREATE TABLE strings (
  id INTEGER PRIMARY KEY,
  value TEXT NOT NULL UNIQUE
);

CREATE TABLE sessions (
  session_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  uid INTEGER NOT NULL,
  state INTEGER NOT NULL CHECK (state IN (1, 2)),  -- 1 running, 2 stopped
  start_time_unix_ns INTEGER NOT NULL,
  end_time_unix_ns INTEGER NOT NULL,
  -- Version 3: what the session keeps (1 the call tree, 2 the tree and every event, Proton's
  -- data="trace") and CLOCK_REALTIME - CLOCK_MONOTONIC when it started, in ns.
  data INTEGER NOT NULL DEFAULT 1 CHECK (data IN (1, 2)),
  clock_offset_ns INTEGER NOT NULL DEFAULT 0,
  -- Version 4: sessions started over running processes (protonctl start): whether it was, and
  -- when it stops by itself (0: when stopped).
  attached INTEGER NOT NULL DEFAULT 0 CHECK (attached IN (0, 1)),
  stop_at_unix_ns INTEGER NOT NULL DEFAULT 0,
  -- Version 5: the job it was started for ('' if none), and whether processes of that job that
  -- register later join it (protonctl start --job J --include-new).
  job TEXT NOT NULL DEFAULT '',
  admits_new INTEGER NOT NULL DEFAULT 0 CHECK (admits_new IN (0, 1)),
  -- Version 6: Proton's mode as common/mode/session_mode.h writes it back ('' for none).
  mode TEXT NOT NULL DEFAULT ''
);

-- A session's problems, one line each; seq keeps the order they were found in.
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
  start_time_ticks INTEGER NOT NULL,  -- /proc/PID/stat field 22
  command TEXT NOT NULL,
  exited INTEGER NOT NULL CHECK (exited IN (0, 1)),
  -- Version 4: the host and where the process sits in a job, from its environment ('' if unset).
  hostname TEXT NOT NULL DEFAULT '',
  rank TEXT NOT NULL DEFAULT '',
  local_rank TEXT NOT NULL DEFAULT '',
  world_size TEXT NOT NULL DEFAULT '',
  slurm_job_id TEXT NOT NULL DEFAULT '',
  slurm_step_id TEXT NOT NULL DEFAULT '',
  pod TEXT NOT NULL DEFAULT '',
  -- Version 5: the pod's namespace (POD_NAMESPACE).
  pod_namespace TEXT NOT NULL DEFAULT ''
);
-- FindLiveProcess: only processes that have not exited are looked up by pid.
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

-- A session's call tree. Node 0 (ROOT) is implicit; node ids grow, parents before children.
CREATE TABLE nodes (
  session_id INTEGER NOT NULL
    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,
  node_id INTEGER NOT NULL,
  parent_id INTEGER NOT NULL,
  name_string_id INTEGER NOT NULL
    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,
  -- store.h NodeKind: 0 a frame, 1 a SASS instruction under its source line
  kind INTEGER NOT NULL DEFAULT 0 CHECK (kind IN (0, 1)),
  -- Version 8: an instruction's cubin (cubins.crc; no foreign key: the cubin may not have come),
  -- 0 when not known.
  cubin_crc INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, node_id)
) WITHOUT ROWID;

-- What one process contributed to a node. No foreign key to nodes: a process may record at the
-- implicit ROOT (node 0), which has no row.
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

-- A metric one process recorded at a node (name suffix stripped); as node_stats, ROOT included.
CREATE TABLE metric_values (
  session_id INTEGER NOT NULL
    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,
  node_id INTEGER NOT NULL,
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  name_string_id INTEGER NOT NULL
    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,
  aggregation INTEGER NOT NULL CHECK (aggregation IN (1, 2, 3)),  -- inclusive, exclusive, property
  is_double INTEGER NOT NULL CHECK (is_double IN (0, 1)),
  int_value INTEGER NOT NULL,
  -- Version 9: NULL is a NaN (SQLite stores a bound NaN as NULL), and only a double may be one.
  double_value REAL CHECK (double_value IS NOT NULL OR is_double = 1),
  PRIMARY KEY (session_id, node_id, process_id, name_string_id)
) WITHOUT ROWID;

-- A process's interned scope paths, as its shim defined them.
CREATE TABLE contexts (
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  context_id INTEGER NOT NULL,
  parent_context_id INTEGER NOT NULL,
  name_string_id INTEGER NOT NULL
    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,
  PRIMARY KEY (process_id, context_id)
) WITHOUT ROWID;

-- A process's interned names (record::NameClass in name_class), as its shim defined them.
CREATE TABLE names (
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  name_id INTEGER NOT NULL,
  name_class INTEGER NOT NULL,
  name_string_id INTEGER NOT NULL
    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,
  PRIMARY KEY (process_id, name_id)
) WITHOUT ROWID;

-- A process's CUDA devices, as its shim read them when GPU tracing started (version 2).
-- device_id is the CUDA ordinal, as in GPU activity records; arch is major * 10 + minor.
CREATE TABLE devices (
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  device_id INTEGER NOT NULL,
  name_string_id INTEGER NOT NULL
    REFERENCES strings (id) DEFERRABLE INITIALLY DEFERRED,
  arch INTEGER NOT NULL,
  num_sms INTEGER NOT NULL,
  clock_rate_khz INTEGER NOT NULL,
  memory_clock_rate_khz INTEGER NOT NULL,
  bus_width_bits INTEGER NOT NULL,
  memory_bytes INTEGER NOT NULL,
  PRIMARY KEY (process_id, device_id)
) WITHOUT ROWID;

-- Where the daemon stands in each lane. Kept as a rowid table: decoder_state can be large, and
-- WITHOUT ROWID suits only small rows.
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

-- The events of trace sessions (data = 2), version 3. Keyed by where their record lay in its
-- lane (the exit for a scope), so a batch committed again inserts nothing twice. Times are
-- CLOCK_MONOTONIC ns; node_id is the event's node in the session's tree.
CREATE TABLE scope_events (
  session_id INTEGER NOT NULL
    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  lane INTEGER NOT NULL,
  record_pos INTEGER NOT NULL,
  tid INTEGER NOT NULL,
  node_id INTEGER NOT NULL,
  begin_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  PRIMARY KEY (session_id, process_id, lane, record_pos)
) WITHOUT ROWID;

-- kind is the record kind: 10 kernel, 11 memcpy, 12 memset.
CREATE TABLE gpu_events (
  session_id INTEGER NOT NULL
    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  lane INTEGER NOT NULL,
  record_pos INTEGER NOT NULL,
  node_id INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  device_id INTEGER NOT NULL,
  stream_id INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL,
  PRIMARY KEY (session_id, process_id, lane, record_pos)
) WITHOUT ROWID;

-- One interval of an in-kernel scope in one warp (an instrumentation buffer of a trace session);
-- a buffer's intervals share its last chunk's lane and position and are told apart by seq. Times
-- are the GPU's global timer; correlation_id is the launch's, whose gpu_events row places them.
CREATE TABLE kernel_scope_events (
  session_id INTEGER NOT NULL
    REFERENCES sessions (session_id) DEFERRABLE INITIALLY DEFERRED,
  process_id INTEGER NOT NULL
    REFERENCES processes (process_id) DEFERRABLE INITIALLY DEFERRED,
  lane INTEGER NOT NULL,
  record_pos INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  node_id INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL,
  device_id INTEGER NOT NULL,
  sm_id INTEGER NOT NULL,
  block_id INTEGER NOT NULL,
  warp_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  cycles INTEGER NOT NULL,
  PRIMARY KEY (session_id, process_id, lane, record_pos, seq)
) WITHOUT ROWID;

-- Version 8: the cubins of PC-sampled modules, one row per CUPTI CRC whichever session or process
-- sent it, for the text of sampled instructions (nvdisasm at query time). A rowid table: its
-- rows are large.
CREATE TABLE cubins (
  crc INTEGER PRIMARY KEY,
  bytes BLOB NOT NULL
);
