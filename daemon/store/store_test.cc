#include "daemon/store/store.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/store/testing/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::store {

// Field-wise equality for the row structs, so tests compare whole rows and vectors of rows.
auto Tie(const SessionRow& r) {
  return std::tie(r.session_id, r.name, r.uid, r.state, r.start_time_unix_ns, r.end_time_unix_ns,
                  r.problems, r.data, r.clock_offset_ns);
}
auto Tie(const ProcessRow& r) {
  return std::tie(r.process_id, r.pid, r.uid, r.start_time_ticks, r.command, r.exited);
}
auto Tie(const SessionProcessRow& r) {
  return std::tie(r.session_id, r.process_id, r.records, r.dropped_records);
}
auto Tie(const NodeRow& r) { return std::tie(r.session_id, r.node_id, r.parent_id, r.name); }
auto Tie(const NodeStatsRow& r) {
  return std::tie(r.session_id, r.node_id, r.process_id, r.count, r.duration_ns_sum,
                  r.duration_ns_min, r.duration_ns_max);
}
auto Tie(const MetricRow& r) {
  return std::tie(r.session_id, r.node_id, r.process_id, r.name, r.aggregation, r.is_double,
                  r.int_value, r.double_value);
}
auto Tie(const ContextRow& r) {
  return std::tie(r.process_id, r.context_id, r.parent_context_id, r.name);
}
auto Tie(const NameRow& r) { return std::tie(r.process_id, r.name_id, r.name_class, r.name); }
auto Tie(const SessionDevice& r) {
  const DeviceRow& d = r.device;
  return std::tie(r.pid, d.process_id, d.device_id, d.name, d.arch, d.num_sms, d.clock_rate_khz,
                  d.memory_clock_rate_khz, d.bus_width_bits, d.memory_bytes);
}
auto Tie(const LaneRow& r) {
  return std::tie(r.process_id, r.lane, r.read_pos, r.dropped_seen, r.corrupt_reason,
                  r.decoder_state);
}

template <typename Row>
requires requires(const Row& row) { Tie(row); }
bool operator==(const Row& a, const Row& b) { return Tie(a) == Tie(b); }

template <typename Row>
requires requires(const Row& row) { Tie(row); }
void PrintTo(const Row& row, std::ostream* os) { *os << ::testing::PrintToString(Tie(row)); }

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::QueryFile;

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// Every kind of row, with edge values: unsigned maxima, empty and binary strings, ROOT stats.
Batch SampleBatch() {
  Batch batch;
  batch.sessions = {
      {1, "train", 1000, SessionState::kRunning, 111, 0, {"lane 0 is corrupt", "3 dropped"}},
      {2, "eval", 0, SessionState::kStopped, 5, 9, {}}};
  batch.processes = {{1, 42, 1000, 777, "python train.py", false},
                     {2, 43, 1000, kMax, "python eval.py", true}};
  batch.session_processes = {{1, 1, 100, 3}, {1, 2, 5, 0}, {2, 2, kMax, 1}};
  batch.nodes = {
      {1, 1, 0, "forward"}, {1, 2, 1, "matmul"}, {1, 3, 0, "backward"}, {2, 1, 0, "forward"}};
  batch.node_stats = {{1, 0, 1, 1, 9, 9, 9},
                      {1, 1, 1, 10, 1000, 50, 200},
                      {1, 1, 2, 1, 5, 5, 5},
                      {1, 2, 1, 10, 600, 40, 90},
                      {2, 1, 2, kMax, kMax, 0, kMax}};
  batch.metrics = {{1, 0, 1, "step", MetricAggregation::kProperty, false, -7, 0, {}},
                   {1, 2, 1, "bytes", MetricAggregation::kExclusive, true, 0, 2.5, {}},
                   {1, 2, 1, "flops", MetricAggregation::kInclusive, false, 123456789, 0, {}}};
  batch.contexts = {{1, 1, 0, "forward"}, {1, 2, 1, "matmul"}};
  batch.names = {{1, 1, 2, "flops"}, {1, 2, 3, "bytes"}};
  batch.devices = {{2, 0, "NVIDIA A100-SXM4-80GB", 80, 108, 1410000, 1593000, 5120, 85097971712},
                   {1, 1, "NVIDIA H100 80GB HBM3", 90, 132, 1980000, 2619000, 5120, 85029158912},
                   {1, 0, "NVIDIA H100 80GB HBM3", UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
                    UINT32_MAX, kMax}};
  batch.lanes = {{1, 0, 4096, 0, "", std::string("\0\x01\xff state", 9)},
                 {1, 1, 128, 5, "length past the end", ""}};
  return batch;
}

class StoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<Store> OpenStore() {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  testing::TempDir dir_;
  std::string path_ = dir_.File("protond.db");
};

TEST_F(StoreTest, RoundTripsEveryRowKind) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const Batch batch = SampleBatch();
  ASSERT_TRUE(store->CommitBatch(batch).ok());

  EXPECT_THAT(*store->ListSessions(), ElementsAre(batch.sessions[0], batch.sessions[1]));
  EXPECT_EQ(*store->GetSession(1), batch.sessions[0]);
  EXPECT_EQ(*store->GetSession(3), std::nullopt);
  EXPECT_THAT(*store->ListSessionProcesses(1),
              ElementsAre(batch.session_processes[0], batch.session_processes[1]));
  EXPECT_EQ(*store->GetProcess(2), batch.processes[1]);
  EXPECT_EQ(*store->GetProcess(3), std::nullopt);

  absl::StatusOr<StoredTree> tree = store->LoadTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_THAT(tree->nodes, ElementsAre(batch.nodes[0], batch.nodes[1], batch.nodes[2]));
  EXPECT_THAT(tree->node_stats, ElementsAre(batch.node_stats[0], batch.node_stats[1],
                                            batch.node_stats[2], batch.node_stats[3]));
  EXPECT_THAT(tree->metrics, ElementsAre(batch.metrics[0], batch.metrics[1], batch.metrics[2]));
  EXPECT_THAT(store->LoadTree(2)->node_stats, ElementsAre(batch.node_stats[4]));
  // Devices of the session's processes, by process and device, with the process's pid.
  EXPECT_THAT(tree->devices,
              ElementsAre(SessionDevice{42, batch.devices[2]}, SessionDevice{42, batch.devices[1]},
                          SessionDevice{43, batch.devices[0]}));
  EXPECT_THAT(store->LoadTree(2)->devices, ElementsAre(SessionDevice{43, batch.devices[0]}));
  EXPECT_THAT(store->LoadTree(3)->devices, ::testing::IsEmpty());

  absl::StatusOr<std::optional<StoredProcess>> process = store->FindLiveProcess(42, 777);
  ASSERT_TRUE(process.ok()) << process.status();
  ASSERT_TRUE(process->has_value());
  EXPECT_EQ((*process)->process, batch.processes[0]);
  EXPECT_THAT((*process)->contexts, ElementsAre(batch.contexts[0], batch.contexts[1]));
  EXPECT_THAT((*process)->names, ElementsAre(batch.names[0], batch.names[1]));
  EXPECT_THAT((*process)->lanes, ElementsAre(batch.lanes[0], batch.lanes[1]));
}

TEST_F(StoreTest, LoadTreeReturnsNodesInIdOrderWhateverTheBatchOrder) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch;
  batch.sessions = {{7, "s", 0, SessionState::kRunning, 0, 0, {}}};
  batch.nodes = {{7, 3, 2, "c"}, {7, 1, 0, "a"}, {7, 2, 1, "b"}};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_THAT(store->LoadTree(7)->nodes,
              ElementsAre(batch.nodes[1], batch.nodes[2], batch.nodes[0]));
}

TEST_F(StoreTest, CommittingTheSameBatchTwiceChangesNothing) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const Batch batch = SampleBatch();
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  const std::vector<SessionRow> sessions = *store->ListSessions();
  const StoredTree tree = *store->LoadTree(1);
  const std::optional<StoredProcess> process = *store->FindLiveProcess(42, 777);
  const std::string strings =
      QueryFile(path_, "SELECT group_concat(id || '=' || value) FROM strings");

  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_EQ(*store->ListSessions(), sessions);
  EXPECT_EQ(store->LoadTree(1)->nodes, tree.nodes);
  EXPECT_EQ(store->LoadTree(1)->node_stats, tree.node_stats);
  EXPECT_EQ(store->LoadTree(1)->metrics, tree.metrics);
  EXPECT_EQ(store->LoadTree(1)->devices, tree.devices);
  EXPECT_EQ((*store->FindLiveProcess(42, 777))->lanes, process->lanes);
  EXPECT_EQ(QueryFile(path_, "SELECT group_concat(id || '=' || value) FROM strings"), strings);
  // forward..bytes and the two device names, once each.
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM strings"), "8");
}

TEST_F(StoreTest, UpsertStoresAbsoluteValuesNotIncrements) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch = SampleBatch();
  ASSERT_TRUE(store->CommitBatch(batch).ok());

  Batch update;
  update.node_stats = {{1, 1, 1, 12, 1300, 40, 300}};
  update.metrics = {{1, 2, 1, "flops", MetricAggregation::kInclusive, false, 5, 0, {}}};
  update.lanes = {{1, 0, 8192, 2, "", "new state"}};
  update.session_processes = {{1, 1, 150, 4}};
  update.processes = {{1, 42, 1000, 777, "python train.py", true}};
  update.devices = {{2, 0, "NVIDIA A100-SXM4-40GB", 80, 108, 1095000, 1215000, 5120, 42298834944}};
  ASSERT_TRUE(store->CommitBatch(update).ok());

  StoredTree tree = *store->LoadTree(1);
  EXPECT_EQ(tree.node_stats[1], update.node_stats[0]);
  EXPECT_EQ(tree.node_stats[0], batch.node_stats[0]);  // rows not in the batch are kept
  EXPECT_EQ(tree.metrics[2], update.metrics[0]);
  EXPECT_EQ(store->ListSessionProcesses(1)->front(), update.session_processes[0]);
  EXPECT_EQ(*store->GetProcess(1), update.processes[0]);
  EXPECT_EQ(store->LoadTree(1)->devices.back(), (SessionDevice{43, update.devices[0]}));
  EXPECT_EQ(QueryFile(path_, "SELECT read_pos || '/' || decoder_state FROM lanes WHERE lane = 0"),
            "8192/new state");
}

TEST_F(StoreTest, ProblemsOfASessionRowReplaceTheStoredList) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch;
  batch.sessions = {{1, "s", 0, SessionState::kRunning, 0, 0, {"a", "b", "c"}}};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  batch.sessions[0].problems = {"c", "a"};
  batch.sessions[0].state = SessionState::kStopped;
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_EQ(*store->GetSession(1), batch.sessions[0]);
  batch.sessions[0].problems.clear();
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_THAT((*store->GetSession(1))->problems, ::testing::IsEmpty());
}

TEST_F(StoreTest, FailedCommitRollsBackTheWholeBatch) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch;
  batch.sessions = {{3, "s", 0, SessionState::kRunning, 0, 0, {"p"}}};
  batch.nodes = {{3, 1, 0, "only in the failed batch"}};
  batch.node_stats = {{3, 1, 99, 1, 1, 1, 1}};  // process 99 does not exist
  absl::Status status = store->CommitBatch(batch).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("FOREIGN KEY constraint failed"));
  EXPECT_EQ(*store->GetSession(3), std::nullopt);
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM strings"), "0");

  // The string interned by the failed batch is gone; the store must not reuse its id.
  batch.node_stats.clear();
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_THAT(store->LoadTree(3)->nodes, ElementsAre(batch.nodes[0]));
}

TEST_F(StoreTest, ValuesOutsideTheEnumsAreRefused) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch;
  batch.sessions = {{1, "s", 0, static_cast<SessionState>(9), 0, 0, {}}};
  absl::StatusOr<std::vector<RefusedSession>> refused = store->CommitBatch(batch);
  ASSERT_TRUE(refused.ok()) << refused.status();
  ASSERT_EQ(refused->size(), 1u);
  EXPECT_EQ((*refused)[0].session_id, 1u);
  EXPECT_EQ((*refused)[0].why.code(), absl::StatusCode::kInvalidArgument);
  // Issue 27: the cause in words, naming the store; the statement by its start, never cut in the
  // middle of a word or a list of columns.
  EXPECT_EQ((*refused)[0].why.message(),
            absl::StrCat("writing sessions: store ", path_,
                         " refused a value (sqlite error 275: CHECK constraint failed: state IN "
                         "(1, 2), in \"INSERT INTO sessions ...\")"));
  EXPECT_EQ(*store->GetSession(1), std::nullopt);
}

// Issue 27: a NaN metric was bound as NULL into a NOT NULL column, and every later commit failed.
TEST_F(StoreTest, NanAndInfinitiesRoundTrip) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Batch batch = SampleBatch();
  batch.metrics = {{1, 1, 1, "loss", MetricAggregation::kInclusive, true, 0, std::nan(""), {}},
                   {1, 1, 1, "gain", MetricAggregation::kInclusive, true, 0, kInf, {}},
                   {1, 1, 1, "debt", MetricAggregation::kExclusive, true, 0, -kInf, {}}};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  absl::StatusOr<StoredTree> tree = store->LoadTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->metrics.size(), 3u);
  std::map<std::string, double> values;
  for (const MetricRow& row : tree->metrics) values[row.name] = row.double_value;
  EXPECT_TRUE(std::isnan(values["loss"]));
  EXPECT_EQ(values["gain"], kInf);
  EXPECT_EQ(values["debt"], -kInf);
  // And the store takes the next batch: nothing was left failing.
  batch.metrics[0].double_value = 1.5;
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_EQ(store->LoadTree(1)->metrics[0].double_value, 1.5);  // "loss": its name came first
}

TEST_F(StoreTest, VectorMetricsRoundTripAndADamagedOneIsAnError) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch = SampleBatch();
  const auto minus_six = static_cast<uint64_t>(-6);
  double half = 0.5;
  uint64_t half_bits;
  std::memcpy(&half_bits, &half, sizeof(half_bits));
  batch.metrics = {{1, 1, 1, "v", MetricAggregation::kInclusive, false, 0, 0, {2, 4, minus_six}},
                   {1, 1, 1, "w", MetricAggregation::kProperty, true, 0, 0, {half_bits}},
                   {1, 1, 1, "n", MetricAggregation::kInclusive, false, 5, 0, {}}};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  absl::StatusOr<StoredTree> tree = store->LoadTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  std::map<std::string, MetricRow> rows;
  for (const MetricRow& row : tree->metrics) rows[row.name] = row;
  EXPECT_THAT(rows["v"].vector_bits, ElementsAre(2, 4, minus_six));
  EXPECT_THAT(rows["w"].vector_bits, ElementsAre(half_bits));
  EXPECT_TRUE(rows["w"].is_double);
  EXPECT_TRUE(rows["n"].vector_bits.empty());
  EXPECT_EQ(rows["n"].int_value, 5);

  testing::ExecOnFile(path_, "UPDATE metric_values SET vector_value = x'0102030405'");
  EXPECT_EQ(store->LoadTree(1).status().ToString(),
            "DATA_LOSS: metric_values.vector_value: a blob of 5 bytes is not a whole number of "
            "8-byte words");
}

TEST_F(StoreTest, AnIntegerMetricIsNeverNull) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch = SampleBatch();
  batch.metrics = {{1, 1, 1, "steps", MetricAggregation::kInclusive, false, 3, std::nan(""), {}}};
  absl::StatusOr<std::vector<RefusedSession>> refused = store->CommitBatch(batch);
  ASSERT_TRUE(refused.ok()) << refused.status();
  ASSERT_EQ(refused->size(), 1u);
  EXPECT_THAT((*refused)[0].why.message(), HasSubstr("writing metric_values"));
}

// Issue 27: one session's refused row failed the commit of every session, every cycle.
TEST_F(StoreTest, ASessionsRefusedRowsLeaveTheOthersAndTheLanesCommitted) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch = SampleBatch();
  batch.metrics.push_back({.session_id = 2,
                           .node_id = 1,
                           .process_id = 2,
                           .name = "bad",
                           .aggregation = static_cast<MetricAggregation>(9),  // CHECK (1, 2, 3)
                           .int_value = 1,
                           .vector_bits = {}});
  absl::StatusOr<std::vector<RefusedSession>> refused = store->CommitBatch(batch);
  ASSERT_TRUE(refused.ok()) << refused.status();
  ASSERT_EQ(refused->size(), 1u);
  EXPECT_EQ((*refused)[0].session_id, 2u);
  EXPECT_EQ((*refused)[0].why.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT((*refused)[0].why.message(), HasSubstr("writing metric_values"));
  EXPECT_THAT((*refused)[0].why.message(), HasSubstr("CHECK constraint failed"));

  EXPECT_EQ(*store->GetSession(1), batch.sessions[0]);
  EXPECT_EQ(*store->GetSession(2), std::nullopt);
  EXPECT_EQ(store->LoadTree(1)->metrics.size(), 3u);
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM nodes WHERE session_id = 2"), "0");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM session_processes WHERE session_id = 2"), "0");
  EXPECT_EQ(QueryFile(path_, "SELECT group_concat(read_pos) FROM lanes"), "4096,128");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM processes"), "2");
  EXPECT_EQ(QueryFile(path_, "PRAGMA foreign_key_check"), "");
}

TEST_F(StoreTest, KeepsTheFirstCopyOfEachCubin) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const std::string cubin(
      "\x7f"
      "ELF\0\1\2",
      7);  // binary, zero bytes included
  Batch batch;
  batch.cubins = {{0xfedcba9876543210, cubin}};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  batch.cubins = {{0xfedcba9876543210, "another copy"}, {5, "five"}};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_EQ(*store->LoadCubin(0xfedcba9876543210), cubin);
  EXPECT_EQ(*store->LoadCubin(5), "five");
  EXPECT_EQ(*store->LoadCubin(6), std::nullopt);
}

TEST_F(StoreTest, NewStoreHasTheCurrentSchemaVersionInWalMode) {
  ASSERT_NE(OpenStore(), nullptr);
  EXPECT_EQ(QueryFile(path_, "PRAGMA user_version"), absl::StrCat(kSchemaVersion));
  EXPECT_EQ(QueryFile(path_, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'"), "19");
  ASSERT_NE(OpenStore(), nullptr);  // reopening a current store changes nothing
}

TEST_F(StoreTest, RefusesANewerSchemaAndLeavesTheFileUntouched) {
  testing::ExecOnFile(
      path_,
      absl::StrCat("CREATE TABLE future (x); PRAGMA user_version = ", kSchemaVersion + 1, ";"));
  const std::string before = testing::ReadFileBytes(path_);
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store.status().message(),
            absl::StrCat("store ", path_, " has schema version ", kSchemaVersion + 1,
                         ", newer than this protond's ", kSchemaVersion, "; use a newer protond"));
  EXPECT_EQ(testing::ReadFileBytes(path_), before);
  EXPECT_EQ(QueryFile(path_, "PRAGMA journal_mode"), "delete");
}

// What Store::Open says about `path` in a child process that is not root (root may write any
// file, so a read-only store is only read-only for another user): "OK" or its error.
std::string OpenAsAUserWhoIsNotRoot(const std::string& path) {
  int out[2];
  if (pipe(out) != 0) return "pipe failed";
  const pid_t child = fork();
  if (child == 0) {
    close(out[0]);
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    const std::string said = store.ok() ? "OK" : std::string(store.status().message());
    (void)!write(out[1], said.data(), said.size());
    _exit(0);
  }
  close(out[1]);
  std::string said;
  char buffer[512];
  for (ssize_t got; (got = read(out[0], buffer, sizeof(buffer))) > 0;) said.append(buffer, got);
  close(out[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return said;
}

// Issue 27: a daemon on a read-only store started without a word, and failed every session.
TEST_F(StoreTest, AStoreThatCannotBeWrittenIsRefusedAtOpenNamingIt) {
  ASSERT_NE(OpenStore(), nullptr);  // created, then closed (SQLite removes -wal and -shm)
  chmod(path_.c_str(), 0444);
  chmod(dir_.path().c_str(), 0777);
  EXPECT_EQ(OpenAsAUserWhoIsNotRoot(path_),
            absl::StrCat("store ", path_,
                         " is read-only; protond must write it: make it writable by protond's "
                         "user, or give protond another --state-dir"));
  chmod(dir_.path().c_str(), 0555);  // as a read-only file system: -wal and -shm cannot be made
  EXPECT_THAT(OpenAsAUserWhoIsNotRoot(path_),
              HasSubstr(absl::StrCat("store ", path_, " is read-only")));
  chmod(dir_.path().c_str(), 0700);
}

// Issue 27: removing the state directory while protond ran went unnoticed: SQLite wrote on into
// the unlinked file, and the next start found no session at all.
TEST_F(StoreTest, AStoreWhoseDirectoryWasRemovedIsWrittenAnewAtItsPath) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const Batch batch = SampleBatch();
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_TRUE(store->IsAtItsPath());
  std::filesystem::remove_all(dir_.path());
  EXPECT_FALSE(store->IsAtItsPath());
  std::filesystem::create_directories(dir_.path());
  ASSERT_TRUE(store->CopyTo(path_).ok());
  store.reset();
  std::unique_ptr<Store> reopened = OpenStore();
  ASSERT_NE(reopened, nullptr);
  EXPECT_THAT(*reopened->ListSessions(), ElementsAre(batch.sessions[0], batch.sessions[1]));
  EXPECT_THAT(reopened->LoadTree(1)->nodes,
              ElementsAre(batch.nodes[0], batch.nodes[1], batch.nodes[2]));
  EXPECT_TRUE(reopened->IsAtItsPath());
  EXPECT_EQ(QueryFile(path_, "PRAGMA integrity_check"), "ok");
}

TEST_F(StoreTest, RefusesAFileThatIsNotADatabaseNamingIt) {
  for (const std::string& bytes :
       {std::string("x"), std::string("this is a text file, not a database\n"),
        std::string("SQLite format 3\0", 16) + std::string(4080, '\x5a')}) {
    SCOPED_TRACE(bytes.size());
    testing::WriteFileBytes(path_, bytes);
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
    EXPECT_FALSE(store.ok());
    EXPECT_THAT(store.status().message(), HasSubstr(absl::StrCat("store ", path_, " is not a")));
    EXPECT_EQ(testing::ReadFileBytes(path_), bytes);
  }
}

TEST_F(StoreTest, RefusesAnotherApplicationsDatabase) {
  testing::ExecOnFile(path_, "CREATE TABLE theirs (x)");
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("no protond schema version"));
  testing::ExecOnFile(path_, "PRAGMA user_version = 1");  // our version, not our application_id
  store = Store::Open(path_);
  EXPECT_THAT(store.status().message(), HasSubstr("another application's SQLite database"));
}

TEST_F(StoreTest, OpenFailsInAMissingDirectoryNamingThePath) {
  const std::string path = dir_.File("missing/protond.db");
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  EXPECT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr(path));
}

TEST_F(StoreTest, FindLiveProcessIgnoresExitedProcessesAndOtherStartTimes) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch;
  batch.processes = {{1, 100, 0, 5, "live", false},
                     {2, 100, 0, 6, "exited, same pid", true},
                     {3, 200, 0, 7, "exited", true}};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_EQ((*store->FindLiveProcess(100, 5))->process, batch.processes[0]);
  EXPECT_EQ(*store->FindLiveProcess(100, 6), std::nullopt);
  EXPECT_EQ(*store->FindLiveProcess(100, 7), std::nullopt);
  EXPECT_EQ(*store->FindLiveProcess(200, 7), std::nullopt);
  EXPECT_EQ(*store->FindLiveProcess(300, 5), std::nullopt);

  batch.processes = {{1, 100, 0, 5, "live", true}};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_EQ(*store->FindLiveProcess(100, 5), std::nullopt);
}

TEST_F(StoreTest, MaxIdsAreZeroWhenEmptyThenTheLargestStored) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(*store->MaxSessionId(), 0u);
  EXPECT_EQ(*store->MaxProcessId(), 0u);
  Batch batch;
  batch.sessions = {{9, "a", 0, SessionState::kRunning, 0, 0, {}},
                    {4, "b", 0, SessionState::kRunning, 0, 0, {}}};
  batch.processes = {{12, 1, 0, 1, "", false}, {30, 2, 0, 2, "", true}};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_EQ(*store->MaxSessionId(), 9u);
  EXPECT_EQ(*store->MaxProcessId(), 30u);
}

TEST_F(StoreTest, IntegrityCheckPassesAfterManyCommits) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch = SampleBatch();
  for (uint64_t i = 0; i < 200; ++i) {
    batch.nodes.push_back({1, static_cast<uint32_t>(10 + i), 1, absl::StrCat("node ", i)});
    batch.node_stats.push_back({1, static_cast<uint32_t>(10 + i), 1, i, i * 10, i, i * 2});
    batch.lanes[0].read_pos += 64;
    ASSERT_TRUE(store->CommitBatch(batch).ok());
  }
  EXPECT_EQ(QueryFile(path_, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
  EXPECT_EQ(store->LoadTree(1)->nodes.size(), 203u);
}

TEST_F(StoreTest, SecondStoreReadsCommittedDataWhileTheFirstStaysOpen) {
  std::unique_ptr<Store> writer = OpenStore();
  ASSERT_NE(writer, nullptr);
  Batch batch = SampleBatch();
  ASSERT_TRUE(writer->CommitBatch(batch).ok());

  std::unique_ptr<Store> reader = OpenStore();
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->LoadTree(1)->node_stats[1], batch.node_stats[1]);
  EXPECT_EQ(*reader->MaxSessionId(), 2u);

  // The reader holds no snapshot between calls: it sees the writer's next commit.
  batch.node_stats[1].count = 11;
  batch.sessions.push_back({5, "later", 0, SessionState::kRunning, 0, 0, {}});
  ASSERT_TRUE(writer->CommitBatch(batch).ok());
  EXPECT_EQ(reader->LoadTree(1)->node_stats[1].count, 11u);
  EXPECT_EQ(*reader->MaxSessionId(), 5u);
  EXPECT_EQ(reader->ListSessions()->size(), 3u);
}

}  // namespace
}  // namespace protond::store
