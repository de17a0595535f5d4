// A store written by an older protond is upgraded in place when opened, keeping its data.
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/store/internal/test_schemas.h"
#include "daemon/store/store.h"
#include "daemon/store/testing/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::store {
namespace {

using ::testing::ElementsAre;
using testing::kSchemaV1;
using testing::QueryFile;

// A version-1 store with one stopped session of one process: a node with stats, a problem, a
// context and a lane.
constexpr char kDataV1[] = R"sql(
INSERT INTO strings (id, value) VALUES (1, 'forward');
INSERT INTO sessions VALUES (1, 'train', 1000, 2, 5, 9);
INSERT INTO session_problems VALUES (1, 0, 'lane 3 is corrupt');
INSERT INTO processes VALUES (1, 42, 1000, 777, 'python train.py', 1);
INSERT INTO session_processes VALUES (1, 1, 10, 2);
INSERT INTO nodes VALUES (1, 1, 0, 1);
INSERT INTO node_stats VALUES (1, 1, 1, 10, 1000, 50, 200);
INSERT INTO contexts VALUES (1, 1, 0, 1);
INSERT INTO lanes VALUES (1, 0, 4096, 2, '', x'0102');
PRAGMA application_id = 1347572814;
PRAGMA user_version = 1;
)sql";

class StoreMigrationTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::ExecOnFile(path_, absl::StrCat(kSchemaV1, kDataV1)); }

  testing::TempDir dir_;
  std::string path_ = dir_.File("protond.db");
};

TEST_F(StoreMigrationTest, VersionOneIsUpgradedAndKeepsItsData) {
  ASSERT_EQ(QueryFile(path_, "PRAGMA user_version"), "1");
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path_, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM sqlite_schema WHERE name = 'devices'"), "1");
  EXPECT_EQ(QueryFile(path_,
                      "SELECT count(*) FROM sqlite_schema WHERE name IN ('scope_events', "
                      "'gpu_events')"),
            "2");

  absl::StatusOr<std::optional<SessionRow>> session = (*store)->GetSession(1);
  ASSERT_TRUE(session.ok() && session->has_value()) << session.status();
  EXPECT_EQ((*session)->name, "train");
  EXPECT_EQ((*session)->state, SessionState::kStopped);
  EXPECT_EQ((*session)->data, SessionData::kTree);  // sessions before version 3 kept the tree
  EXPECT_EQ((*session)->clock_offset_ns, 0);
  EXPECT_THAT((*session)->problems, ElementsAre("lane 3 is corrupt"));
  absl::StatusOr<StoredTree> tree = (*store)->LoadTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes.size(), 1u);
  EXPECT_EQ(tree->nodes[0].name, "forward");
  ASSERT_EQ(tree->node_stats.size(), 1u);
  EXPECT_EQ(tree->node_stats[0].duration_ns_sum, 1000u);
  EXPECT_TRUE(tree->devices.empty());
  EXPECT_EQ(QueryFile(path_, "SELECT read_pos || '/' || hex(decoder_state) FROM lanes"),
            "4096/0102");
  EXPECT_EQ(QueryFile(path_, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

TEST_F(StoreMigrationTest, TheUpgradedStoreTakesDevices) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  Batch batch;
  batch.devices = {{1, 0, "NVIDIA H100 80GB HBM3", 90, 132, 1980000, 2619000, 5120, 85029158912}};
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  // The device name is interned beside the strings version 1 wrote.
  EXPECT_EQ(QueryFile(path_, "SELECT group_concat(id || '=' || value) FROM strings"),
            "1=forward,2=NVIDIA H100 80GB HBM3");
  store->reset();

  store = Store::Open(path_);  // reopening a current store changes nothing
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<StoredTree> tree = (*store)->LoadTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->devices.size(), 1u);
  EXPECT_EQ(tree->devices[0].pid, 42u);
  EXPECT_EQ(tree->devices[0].device, batch.devices[0]);
}

// Version 2 as protond shipped it: version 1 plus the devices table, with one device stored.
constexpr char kSchemaAndDataV2Additions[] = R"sql(
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
INSERT INTO strings (id, value) VALUES (2, 'NVIDIA H100 80GB HBM3');
INSERT INTO devices VALUES (1, 0, 2, 90, 132, 1980000, 2619000, 5120, 85029158912);
PRAGMA user_version = 2;
)sql";

class StoreMigrationFromV2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::ExecOnFile(path_, absl::StrCat(kSchemaV1, kDataV1, kSchemaAndDataV2Additions));
  }

  testing::TempDir dir_;
  std::string path_ = dir_.File("protond.db");
};

TEST_F(StoreMigrationFromV2Test, VersionTwoIsUpgradedAndKeepsItsData) {
  ASSERT_EQ(QueryFile(path_, "PRAGMA user_version"), "2");
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path_, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  absl::StatusOr<std::optional<SessionRow>> session = (*store)->GetSession(1);
  ASSERT_TRUE(session.ok() && session->has_value()) << session.status();
  EXPECT_EQ((*session)->name, "train");
  EXPECT_EQ((*session)->data, SessionData::kTree);
  absl::StatusOr<StoredTree> tree = (*store)->LoadTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->devices.size(), 1u);
  EXPECT_EQ(tree->devices[0].device.name, "NVIDIA H100 80GB HBM3");
  absl::StatusOr<StoredTrace> trace = (*store)->LoadTrace(1);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->scope_events.empty());
  EXPECT_TRUE(trace->gpu_events.empty());
  EXPECT_EQ(QueryFile(path_, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

TEST_F(StoreMigrationFromV2Test, TheUpgradedStoreTakesTraceSessionsAndEvents) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  Batch batch;
  SessionRow trace_session{2, "t", 1000, SessionState::kRunning, 10, 0, {}};
  trace_session.data = SessionData::kTrace;
  trace_session.clock_offset_ns = 1700000000000000000;
  batch.sessions = {trace_session};
  batch.session_processes = {{2, 1, 2, 0}};
  batch.scope_events = {{2, 1, 0, 64, 42, 1, 100, 200}};
  batch.gpu_events = {{2, 1, 1, 88, 2, 10, 150, 180, 0, 7, 5}};
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  store->reset();

  store = Store::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::optional<SessionRow>> session = (*store)->GetSession(2);
  ASSERT_TRUE(session.ok() && session->has_value()) << session.status();
  EXPECT_EQ((*session)->data, SessionData::kTrace);
  EXPECT_EQ((*session)->clock_offset_ns, 1700000000000000000);
  absl::StatusOr<StoredTrace> trace = (*store)->LoadTrace(2);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_THAT(trace->scope_events, ElementsAre(batch.scope_events[0]));
  EXPECT_THAT(trace->gpu_events, ElementsAre(batch.gpu_events[0]));
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

// Versions 4 and 5: an older process has no job, an older session was not attached nor started
// for a job; new rows keep all of it.
TEST_F(StoreMigrationFromV2Test, TheUpgradedStoreTakesAttachedSessionsAndJobs) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::optional<ProcessRow>> old_process = (*store)->GetProcess(1);
  ASSERT_TRUE(old_process.ok() && old_process->has_value()) << old_process.status();
  EXPECT_EQ((*old_process)->job, JobRow{});
  absl::StatusOr<std::optional<SessionRow>> old_session = (*store)->GetSession(1);
  ASSERT_TRUE(old_session.ok() && old_session->has_value()) << old_session.status();
  EXPECT_FALSE((*old_session)->attached);
  EXPECT_EQ((*old_session)->stop_at_unix_ns, 0);
  EXPECT_EQ((*old_session)->job, "");
  EXPECT_FALSE((*old_session)->admits_new);

  Batch batch;
  SessionRow attached{2, "on-demand", 1000, SessionState::kRunning, 10, 0, {}};
  attached.attached = true;
  attached.stop_at_unix_ns = 30000000010;
  attached.job = "4242";
  attached.admits_new = true;
  batch.sessions = {attached};
  ProcessRow process{.process_id = 2,
                     .pid = 77,
                     .uid = 1000,
                     .start_time_ticks = 5,
                     .command = "python train.py",
                     .exited = false};
  process.job = {"node7", "3", "1", "8", "4242", "0", "trainer-0", "ml"};
  batch.processes = {process};
  batch.session_processes = {{2, 2, 0, 0}};
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  store->reset();

  store = Store::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::optional<SessionRow>> session = (*store)->GetSession(2);
  ASSERT_TRUE(session.ok() && session->has_value()) << session.status();
  EXPECT_TRUE((*session)->attached);
  EXPECT_EQ((*session)->stop_at_unix_ns, 30000000010);
  EXPECT_EQ((*session)->job, "4242");
  EXPECT_TRUE((*session)->admits_new);
  absl::StatusOr<std::optional<ProcessRow>> stored = (*store)->GetProcess(2);
  ASSERT_TRUE(stored.ok() && stored->has_value()) << stored.status();
  EXPECT_EQ((*stored)->job, process.job);
}

// Version 6: an older session has no mode; a new one keeps its own.
TEST_F(StoreMigrationFromV2Test, TheUpgradedStoreTakesSessionModes) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::optional<SessionRow>> old_session = (*store)->GetSession(1);
  ASSERT_TRUE(old_session.ok() && old_session->has_value()) << old_session.status();
  EXPECT_EQ((*old_session)->mode, "");

  Batch batch;
  SessionRow sampled{2, "sampled", 1000, SessionState::kRunning, 10, 0, {}};
  sampled.mode = "pcsampling:interval=1024";
  batch.sessions = {sampled};
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  store->reset();

  store = Store::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::optional<SessionRow>> session = (*store)->GetSession(2);
  ASSERT_TRUE(session.ok() && session->has_value()) << session.status();
  EXPECT_EQ((*session)->mode, "pcsampling:interval=1024");
}

// Version 15 is version 16 without sessions.history_period and window_summaries.recorded_ns, their
// last columns; version 14 is version 15 without window_summaries' verdict columns; version 13
// is version 14 without collective_kernels and collective_events.launch_correlation_id, its last
// column; version 12 is version 13 without collective_events; version 11 is version 12 without
// window_summaries; version 10 is version 11 without metric_values.vector_value, its last column;
// version 9 is version 10 without sessions.always_on_window, its last column.
#define PROTOND_BACK_TO_V15                           \
  "ALTER TABLE sessions DROP COLUMN history_period; " \
  "ALTER TABLE window_summaries DROP COLUMN recorded_ns; "
#define PROTOND_BACK_TO_V14                                     \
  PROTOND_BACK_TO_V15                                           \
  "ALTER TABLE window_summaries DROP COLUMN collective_calls; " \
  "ALTER TABLE window_summaries DROP COLUMN judged_calls; "     \
  "ALTER TABLE window_summaries DROP COLUMN late_rank; "        \
  "ALTER TABLE window_summaries DROP COLUMN late_pid; "         \
  "ALTER TABLE window_summaries DROP COLUMN late_mean_ns; "     \
  "ALTER TABLE window_summaries DROP COLUMN others_wait_ns; "   \
  "ALTER TABLE window_summaries DROP COLUMN others_wait_share; "
#define PROTOND_BACK_TO_V13         \
  PROTOND_BACK_TO_V14               \
  "DROP TABLE collective_kernels; " \
  "ALTER TABLE collective_events DROP COLUMN launch_correlation_id; "
#define PROTOND_BACK_TO_V12 PROTOND_BACK_TO_V13 "DROP TABLE collective_events; "
#define PROTOND_BACK_TO_V11 PROTOND_BACK_TO_V12 "DROP TABLE window_summaries; "
#define PROTOND_BACK_TO_V10 \
  PROTOND_BACK_TO_V11 "ALTER TABLE metric_values DROP COLUMN vector_value; "
#define PROTOND_BACK_TO_V9 PROTOND_BACK_TO_V10 "ALTER TABLE sessions DROP COLUMN always_on_window; "
// Version 5 is version 6 without sessions.mode, its last column; version 6 is version 7 without
// kernel_scope_events and nodes.kind; version 7 is version 8 without cubins and nodes.cubin_crc:
// made here from a current store, so that the steps from 5, 6 and 7 are tested on their own.
constexpr char kBackToV7[] =
    PROTOND_BACK_TO_V9 "DROP TABLE cubins; ALTER TABLE nodes DROP COLUMN cubin_crc; ";
TEST(StoreMigrationFromV5Test, VersionFiveIsUpgradedAndItsSessionsHaveNoMode) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Batch batch;
    batch.sessions = {{1, "before", 1000, SessionState::kStopped, 5, 9, {"a problem"}}};
    ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  }
  testing::ExecOnFile(path, absl::StrCat(kBackToV7,
                                         "DROP TABLE kernel_scope_events; ALTER TABLE nodes DROP "
                                         "COLUMN kind; ALTER TABLE sessions DROP COLUMN mode; "
                                         "PRAGMA user_version = 5;"));
  ASSERT_EQ(QueryFile(path,
                      "SELECT count(*) FROM pragma_table_info('sessions') WHERE name = "
                      "'mode'"),
            "0");

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  absl::StatusOr<std::optional<SessionRow>> session = (*store)->GetSession(1);
  ASSERT_TRUE(session.ok() && session->has_value()) << session.status();
  EXPECT_EQ((*session)->name, "before");
  EXPECT_THAT((*session)->problems, ElementsAre("a problem"));
  EXPECT_EQ((*session)->mode, "");
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
}

TEST(StoreMigrationFromV6Test, VersionSixGetsKernelScopeEventsAndNodeKinds) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
  }
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Batch batch;
    batch.sessions = {{1, "before", 1000, SessionState::kStopped, 5, 9, {}}};
    batch.nodes = {{1, 1, 0, "step"}};
    ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  }
  testing::ExecOnFile(path, absl::StrCat(kBackToV7,
                                         "DROP TABLE kernel_scope_events; ALTER TABLE nodes DROP "
                                         "COLUMN kind; PRAGMA user_version = 6;"));

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  Batch batch;
  SessionRow trace{1, "t", 1000, SessionState::kRunning, 5, 0, {}};
  trace.data = SessionData::kTrace;
  batch.sessions = {trace};
  batch.processes = {{1, 4242, 1000, 77, "python", false}};
  batch.kernel_scope_events = {{1, 1, 3, 4096, 0, 2, 99, 0, 17, 5, 0, 1205, 1295, 180}};
  batch.nodes = {{1, 2, 1, "0x0290", NodeKind::kInstruction}};
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  absl::StatusOr<StoredTrace> stored = (*store)->LoadTrace(1);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_THAT(stored->kernel_scope_events, ElementsAre(batch.kernel_scope_events[0]));
  ASSERT_EQ(stored->nodes.size(), 2u);
  EXPECT_EQ(stored->nodes[0].kind, NodeKind::kFrame);  // stored before: a frame
  EXPECT_EQ(stored->nodes[1].kind, NodeKind::kInstruction);
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
}

TEST(StoreMigrationFromV7Test, VersionSevenGetsCubinsAndInstructionsKeepTheirCubin) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Batch batch;
    batch.sessions = {{1, "before", 1000, SessionState::kStopped, 5, 9, {}}};
    batch.nodes = {{1, 1, 0, "0x0290", NodeKind::kInstruction}};
    ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  }
  testing::ExecOnFile(path, absl::StrCat(kBackToV7, "PRAGMA user_version = 7;"));

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  Batch batch;
  batch.nodes = {{1, 2, 1, "0x02a0", NodeKind::kInstruction, 0xc0b1}};
  batch.cubins = {{0xc0b1, std::string("\x7f"
                                       "ELF\0cubin",
                                       10)}};
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  absl::StatusOr<StoredTree> tree = (*store)->LoadTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes.size(), 2u);
  EXPECT_EQ(tree->nodes[0].cubin_crc, 0u);  // stored before: not known
  EXPECT_EQ(tree->nodes[1].cubin_crc, 0xc0b1u);
  absl::StatusOr<std::optional<std::string>> cubin = (*store)->LoadCubin(0xc0b1);
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  EXPECT_EQ(*cubin, batch.cubins[0].bytes);
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
}

// Version 8's metric_values, whose double_value was NOT NULL.
constexpr char kBackToV8[] = PROTOND_BACK_TO_V9
    "CREATE TABLE metric_values_v8 ("
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
    "  double_value REAL NOT NULL,"
    "  PRIMARY KEY (session_id, node_id, process_id, name_string_id)"
    ") WITHOUT ROWID;"
    "INSERT INTO metric_values_v8 SELECT * FROM metric_values;"
    "DROP TABLE metric_values;"
    "ALTER TABLE metric_values_v8 RENAME TO metric_values;"
    "PRAGMA user_version = 8;";

TEST(StoreMigrationFromV8Test, VersionEightKeepsItsMetricsAndTakesNan) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  Batch batch;
  batch.sessions = {{1, "before", 1000, SessionState::kRunning, 5, 0, {}}};
  batch.processes = {{1, 4242, 1000, 77, "python", false}};
  batch.nodes = {{1, 1, 0, "step"}};
  batch.metrics = {{1, 1, 1, "bytes", MetricAggregation::kInclusive, false, 7, 0, {}},
                   {1, 1, 1, "loss", MetricAggregation::kInclusive, true, 0, 2.5, {}}};
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  }
  testing::ExecOnFile(path, kBackToV8);
  const std::string double_value_not_null =
      "SELECT \"notnull\" FROM pragma_table_info('metric_values') WHERE name = 'double_value'";
  ASSERT_EQ(QueryFile(path, double_value_not_null), "1");

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  EXPECT_EQ(QueryFile(path, double_value_not_null), "0");
  absl::StatusOr<StoredTree> before = (*store)->LoadTree(1);
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_EQ(before->metrics.size(), 2u);
  EXPECT_EQ(before->metrics[0].int_value, 7);
  EXPECT_EQ(before->metrics[1].double_value, 2.5);

  batch.metrics[1].double_value = std::nan("");
  absl::StatusOr<std::vector<RefusedSession>> refused = (*store)->CommitBatch(batch);
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_TRUE(refused->empty());
  absl::StatusOr<StoredTree> after = (*store)->LoadTree(1);
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_EQ(after->metrics.size(), 2u);
  EXPECT_TRUE(std::isnan(after->metrics[1].double_value));
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryFile(path, "PRAGMA foreign_key_check"), "");
}

TEST(StoreMigrationFromV9Test, VersionNineKeepsItsSessionsAsStartedBySomeone) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Batch batch;
    batch.sessions = {{1, "by hand", 1000, SessionState::kStopped, 5, 9, {"a problem"}}};
    batch.sessions[0].attached = true;
    batch.sessions[0].stop_at_unix_ns = 9;
    ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  }
  testing::ExecOnFile(path, PROTOND_BACK_TO_V9 "PRAGMA user_version = 9;");
  const std::string has_column =
      "SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'always_on_window'";
  ASSERT_EQ(QueryFile(path, has_column), "0");

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  EXPECT_EQ(QueryFile(path, has_column), "1");
  absl::StatusOr<std::optional<SessionRow>> before = (*store)->GetSession(1);
  ASSERT_TRUE(before.ok() && before->has_value()) << before.status();
  EXPECT_EQ((*before)->name, "by hand");
  EXPECT_TRUE((*before)->attached);
  EXPECT_THAT((*before)->problems, ElementsAre("a problem"));
  EXPECT_FALSE((*before)->always_on_window);

  Batch batch;
  batch.sessions = {{2, "window", 1000, SessionState::kStopped, 5, 9, {}}};
  batch.sessions[0].always_on_window = true;
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  absl::StatusOr<std::optional<SessionRow>> window = (*store)->GetSession(2);
  ASSERT_TRUE(window.ok() && window->has_value()) << window.status();
  EXPECT_TRUE((*window)->always_on_window);
  EXPECT_EQ(QueryFile(path, "SELECT group_concat(always_on_window) FROM sessions"), "0,1");
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
}

// Commits `batch` into the store at `path` (made at the current version when there is none).
void CommitTo(const std::string& path, const Batch& batch) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
}

// A running session "ddp" of one process (pid 4242): where collective calls go.
Batch DdpSession() {
  Batch batch;
  batch.sessions = {{1, "ddp", 1000, SessionState::kRunning, 5, 0, {}}};
  batch.processes = {{1, 4242, 1000, 77, "python", false}};
  batch.session_processes = {{1, 1, 3, 0}};
  return batch;
}

TEST(StoreMigrationFromV10Test, VersionTenKeepsItsScalarMetricsAndTakesVectors) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  Batch batch;
  batch.sessions = {{1, "before", 1000, SessionState::kRunning, 5, 0, {}}};
  batch.processes = {{1, 4242, 1000, 77, "python", false}};
  batch.nodes = {{1, 1, 0, "step"}};
  batch.metrics = {{1, 1, 1, "bytes", MetricAggregation::kInclusive, false, 7, 0, {}},
                   {1, 1, 1, "loss", MetricAggregation::kProperty, true, 0, 2.5, {}}};
  ASSERT_NO_FATAL_FAILURE(CommitTo(path, batch));
  testing::ExecOnFile(path, PROTOND_BACK_TO_V10 "PRAGMA user_version = 10;");
  const std::string has_column =
      "SELECT count(*) FROM pragma_table_info('metric_values') WHERE name = 'vector_value'";
  ASSERT_EQ(QueryFile(path, has_column), "0");

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  EXPECT_EQ(QueryFile(path, has_column), "1");
  absl::StatusOr<StoredTree> before = (*store)->LoadTree(1);
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_EQ(before->metrics.size(), 2u);
  EXPECT_EQ(before->metrics[0].int_value, 7);
  EXPECT_TRUE(before->metrics[0].vector_bits.empty());
  EXPECT_EQ(before->metrics[1].double_value, 2.5);
  EXPECT_EQ(before->metrics[1].aggregation, MetricAggregation::kProperty);

  MetricRow vector{1, 1, 1, "v", MetricAggregation::kInclusive, false, 0, 0, {}};
  vector.vector_bits = {2, 4, static_cast<uint64_t>(-6)};
  batch.metrics.push_back(vector);
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  absl::StatusOr<StoredTree> after = (*store)->LoadTree(1);
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_EQ(after->metrics.size(), 3u);
  EXPECT_THAT(after->metrics[2].vector_bits, ElementsAre(2, 4, static_cast<uint64_t>(-6)));
  EXPECT_EQ(QueryFile(path, "SELECT group_concat(length(vector_value)) FROM metric_values"),
            "0,0,24");
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
}

// A current store at `path` with one stopped always-on window, session 1, and its summary if
// `summarized`.
void StoreAStoppedWindow(const std::string& path, bool summarized) {
  Batch batch;
  batch.sessions = {{1, "window pid 42", 1000, SessionState::kStopped, 5, 9, {}}};
  batch.sessions[0].always_on_window = true;
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  if (summarized) {
    ASSERT_TRUE((*store)->PutWindowSummary({1, 1.5e9, 2, "matmul_kernel", 1e9}).ok());
  }
}

// A version-11 store's windows have no summary: the table comes empty, and protond computes
// theirs after opening it (daemon/service, ProtondServiceTest); a summary put then is kept.
TEST(StoreMigrationFromV11Test, VersionElevenGetsWindowSummariesItsWindowsWithoutOne) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  ASSERT_NO_FATAL_FAILURE(StoreAStoppedWindow(path, /*summarized=*/false));
  testing::ExecOnFile(path, PROTOND_BACK_TO_V11 "PRAGMA user_version = 11;");
  const std::string has_table =
      "SELECT count(*) FROM sqlite_schema WHERE name = 'window_summaries'";
  ASSERT_EQ(QueryFile(path, has_table), "0");

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  EXPECT_EQ(QueryFile(path, has_table), "1");
  absl::StatusOr<std::optional<SessionRow>> before = (*store)->GetSession(1);
  ASSERT_TRUE(before.ok() && before->has_value()) << before.status();
  EXPECT_TRUE((*before)->always_on_window);
  EXPECT_FALSE((*before)->window_summary.has_value());

  ASSERT_TRUE((*store)->PutWindowSummary({1, 1.5e9, 2, "matmul_kernel", 1e9}).ok());
  absl::StatusOr<std::optional<SessionRow>> after = (*store)->GetSession(1);
  ASSERT_TRUE(after.ok() && after->has_value() && (*after)->window_summary.has_value());
  EXPECT_EQ((*after)->window_summary->top_kernel, "matmul_kernel");
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryFile(path, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

// A version-12 store gets collective_events, empty; its sessions then take collective calls.
TEST(StoreMigrationFromV12Test, VersionTwelveGetsCollectiveEventsAndTakesThem) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  Batch batch = DdpSession();
  ASSERT_NO_FATAL_FAILURE(CommitTo(path, batch));
  testing::ExecOnFile(path, PROTOND_BACK_TO_V12 "PRAGMA user_version = 12;");
  const std::string has_table =
      "SELECT count(*) FROM sqlite_schema WHERE name = 'collective_events'";
  ASSERT_EQ(QueryFile(path, has_table), "0");

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  EXPECT_EQ(QueryFile(path, has_table), "1");
  absl::StatusOr<StoredCollectives> before = (*store)->LoadCollectives(1);
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_TRUE(before->collective_events.empty());

  Batch calls;
  calls.collective_events = {
      {1, 1, 2, 320, 0, 100, 200, 9, 3, 64, 1, 2, "Broadcast", "ncclInt8", "TREE", "SIMPLE"}};
  ASSERT_TRUE((*store)->CommitBatch(calls).ok());
  absl::StatusOr<StoredCollectives> stored = (*store)->LoadCollectives(1);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->collective_events, calls.collective_events);
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryFile(path, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

// A version-13 store's calls name no kernel; after the upgrade they are read with none, and new
// calls keep theirs and their kernels' times.
TEST(StoreMigrationFromV13Test, VersionThirteenGetsCollectiveKernelsAndKeepsItsCalls) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  Batch batch = DdpSession();
  const CollectiveEventRow old_call{1, 1,  2, 320, 0,           100,        200,    9,
                                    3, 64, 1, 2,   "Broadcast", "ncclInt8", "TREE", "SIMPLE"};
  batch.collective_events = {old_call};
  ASSERT_NO_FATAL_FAILURE(CommitTo(path, batch));
  testing::ExecOnFile(path, PROTOND_BACK_TO_V13 "PRAGMA user_version = 13;");
  const std::string has_table =
      "SELECT count(*) FROM sqlite_schema WHERE name = 'collective_kernels'";
  ASSERT_EQ(QueryFile(path, has_table), "0");

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  EXPECT_EQ(QueryFile(path, has_table), "1");
  Batch calls;
  CollectiveEventRow new_call = old_call;
  new_call.record_pos = 448;
  new_call.launch_correlation_id = 12;
  calls.collective_events = {new_call};
  calls.collective_kernels = {{1, 1, 12, 0, 150, 400}};
  ASSERT_TRUE((*store)->CommitBatch(calls).ok());
  absl::StatusOr<StoredCollectives> stored = (*store)->LoadCollectives(1);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_THAT(stored->collective_events, ElementsAre(old_call, new_call));
  EXPECT_EQ(stored->collective_kernels, calls.collective_kernels);
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryFile(path, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

// A version-14 store's window summaries get the verdict's columns with no verdict in them
// (collective_calls 0, no late rank); a summary put then keeps its verdict.
TEST(StoreMigrationFromV14Test, VersionFourteensSummariesGetNoVerdictAndTakeOne) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  ASSERT_NO_FATAL_FAILURE(StoreAStoppedWindow(path, /*summarized=*/true));
  testing::ExecOnFile(path, PROTOND_BACK_TO_V14 "PRAGMA user_version = 14;");

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  absl::StatusOr<std::optional<SessionRow>> before = (*store)->GetSession(1);
  ASSERT_TRUE(before.ok() && before->has_value() && (*before)->window_summary.has_value());
  EXPECT_EQ((*before)->window_summary->top_kernel, "matmul_kernel");
  EXPECT_EQ((*before)->window_summary->verdict, WindowVerdictRow{});
  EXPECT_EQ((*before)->window_summary->verdict.late_rank, -1);

  const WindowVerdictRow verdict{80, 40, 1, 4242, 10.2e6, 400e6, 0.2};
  ASSERT_TRUE((*store)->PutWindowSummary({1, 1.5e9, 2, "matmul_kernel", 1e9, verdict}).ok());
  absl::StatusOr<std::optional<SessionRow>> after = (*store)->GetSession(1);
  ASSERT_TRUE(after.ok() && after->has_value() && (*after)->window_summary.has_value());
  EXPECT_EQ((*after)->window_summary->verdict, verdict);
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
}

// A version-15 store's sessions are all windows or started by hand, and its summaries a window's:
// after the upgrade they read so (period kWindow, recorded_ns 0), and a period is kept as one.
TEST(StoreMigrationFromV15Test, VersionFifteensWindowsStayWindowsAndPeriodsAreKept) {
  testing::TempDir dir;
  const std::string path = dir.File("protond.db");
  ASSERT_NO_FATAL_FAILURE(StoreAStoppedWindow(path, /*summarized=*/true));
  testing::ExecOnFile(path, PROTOND_BACK_TO_V15 "PRAGMA user_version = 15;");
  ASSERT_EQ(QueryFile(path,
                      "SELECT count(*) FROM pragma_table_info('sessions') "
                      "WHERE name = 'history_period'"),
            "0");

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(QueryFile(path, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  absl::StatusOr<std::optional<SessionRow>> before = (*store)->GetSession(1);
  ASSERT_TRUE(before.ok() && before->has_value() && (*before)->window_summary.has_value());
  EXPECT_TRUE((*before)->always_on_window);
  EXPECT_EQ((*before)->period, HistoryPeriod::kWindow);
  EXPECT_EQ((*before)->window_summary->top_kernel, "matmul_kernel");
  EXPECT_EQ((*before)->window_summary->recorded_ns, 0);

  SessionRow hour = **before;
  hour.session_id = 2;
  hour.period = HistoryPeriod::kHour;
  Batch batch;
  batch.sessions = {hour};
  ASSERT_TRUE((*store)->CommitBatch(batch).ok());
  ASSERT_TRUE(
      (*store)->PutWindowSummary({2, 1.5e9, 2, "matmul_kernel", 1e9, {}, 120'000'000'000}).ok());
  absl::StatusOr<std::optional<SessionRow>> after = (*store)->GetSession(2);
  ASSERT_TRUE(after.ok() && after->has_value() && (*after)->window_summary.has_value());
  EXPECT_EQ((*after)->period, HistoryPeriod::kHour);
  EXPECT_EQ((*after)->window_summary->recorded_ns, 120'000'000'000);
  EXPECT_EQ(QueryFile(path, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryFile(path, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
}

}  // namespace
}  // namespace protond::store
