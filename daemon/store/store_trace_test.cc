// The events of trace sessions: stored with the commit, read back in order, never twice.
#include <memory>
#include <string>

#include "daemon/store/store.h"
#include "daemon/store/testing/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::store {
namespace {

using ::testing::ElementsAre;
using testing::QueryFile;

class StoreTraceTest : public ::testing::Test {
 protected:
  std::unique_ptr<Store> OpenStore() {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // A trace session 1 and a tree session 2 of process 1, with the node "step" (1) and a kernel
  // under it (2) in session 1.
  static Batch SessionsBatch() {
    Batch batch;
    SessionRow trace{1, "t", 1000, SessionState::kRunning, 5, 0, {}};
    trace.data = SessionData::kTrace;
    trace.clock_offset_ns = -42;
    batch.sessions = {trace, {2, "tree", 1000, SessionState::kRunning, 6, 0, {}}};
    batch.processes = {{1, 4242, 1000, 77, "python", false}};
    batch.session_processes = {{1, 1, 3, 0}, {2, 1, 0, 0}};
    batch.nodes = {{1, 1, 0, "step"}, {1, 2, 1, "add_one"}};
    return batch;
  }

  testing::TempDir dir_;
  std::string path_ = dir_.File("protond.db");
};

TEST_F(StoreTraceTest, EventsRoundTripInLaneOrder) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch = SessionsBatch();
  const ScopeEventRow inner{1, 1, 0, 48, 4242, 1, 1000, 1500};
  const ScopeEventRow outer{1, 1, 0, 16, 4243, 1, 900, 2000};
  const GpuEventRow kernel{1, 1, 3, 88, 2, 10, 1200, 1300, 0, 7, 99};
  batch.scope_events = {inner, outer};
  batch.gpu_events = {kernel};
  // Two intervals of one buffer (lane 3, position 4096), in-kernel scope node 3 under the kernel.
  batch.nodes.push_back({1, 3, 2, "loop"});
  const KernelScopeEventRow warp1{1, 1, 3, 4096, 1, 3, 99, 0, 17, 5, 1, 1210, 1290, 160};
  const KernelScopeEventRow warp0{1, 1, 3, 4096, 0, 3, 99, 0, 17, 5, 0, 1205, 1295, 180};
  batch.kernel_scope_events = {warp1, warp0};
  ASSERT_TRUE(store->CommitBatch(batch).ok());

  absl::StatusOr<StoredTrace> trace = store->LoadTrace(1);
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_EQ(trace->nodes.size(), 3u);
  EXPECT_EQ(trace->nodes[1].name, "add_one");
  EXPECT_THAT(trace->scope_events, ElementsAre(outer, inner));  // by lane, then position
  EXPECT_THAT(trace->gpu_events, ElementsAre(kernel));
  EXPECT_THAT(trace->kernel_scope_events, ElementsAre(warp0, warp1));  // by buffer, then seq
  absl::StatusOr<std::optional<SessionRow>> session = store->GetSession(1);
  ASSERT_TRUE(session.ok() && session->has_value());
  EXPECT_EQ((*session)->data, SessionData::kTrace);
  EXPECT_EQ((*session)->clock_offset_ns, -42);
  EXPECT_EQ(store->GetSession(2)->value().data, SessionData::kTree);
}

// A collective call of the tree session 2, called from the node "step".
CollectiveEventRow AllReduceOfSession2(uint64_t record_pos, uint64_t seq) {
  return {2,   1,   4,  record_pos, 1,           5000,          5100,   0xfeedULL << 40,
          seq, 256, 1u, 2,          "AllReduce", "ncclFloat32", "RING", "LL"};
}

TEST_F(StoreTraceTest, CollectivesOfATreeSessionRoundTripInLaneOrderWithTheirNodes) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch = SessionsBatch();
  batch.nodes.push_back({2, 1, 0, "step"});
  const CollectiveEventRow first = AllReduceOfSession2(120, 7);
  CollectiveEventRow second = AllReduceOfSession2(240, 8);
  second.op = "AllGather";
  second.datatype = "ncclBfloat16";
  second.protocol = "SIMPLE";
  second.launch_correlation_id = 31;
  batch.collective_events = {second, first};
  const CollectiveKernelRow kernel_31{2, 1, 31, 1, 5050, 5400};
  const CollectiveKernelRow kernel_12{2, 1, 12, 0, 4000, 4100};
  batch.collective_kernels = {kernel_31, kernel_12};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  ASSERT_TRUE(store->CommitBatch(batch).ok());  // again: nothing twice

  absl::StatusOr<StoredCollectives> collectives = store->LoadCollectives(2);
  ASSERT_TRUE(collectives.ok()) << collectives.status();
  EXPECT_THAT(collectives->collective_events, ElementsAre(first, second));
  EXPECT_THAT(collectives->collective_kernels, ElementsAre(kernel_12, kernel_31));
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM collective_kernels"), "2");
  ASSERT_EQ(collectives->nodes.size(), 1u);
  EXPECT_EQ(collectives->nodes[0].name, "step");
  EXPECT_TRUE(store->LoadCollectives(1)->collective_events.empty());
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM collective_events"), "2");
}

TEST_F(StoreTraceTest, ABatchCommittedAgainAddsNoEvent) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Batch batch = SessionsBatch();
  batch.scope_events = {{1, 1, 0, 16, 4242, 1, 900, 2000}};
  batch.gpu_events = {{1, 1, 3, 88, 2, 10, 1200, 1300, 0, 7, 99}};
  batch.kernel_scope_events = {{1, 1, 3, 4096, 0, 2, 99, 0, 17, 5, 0, 1205, 1295, 180}};
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  ASSERT_TRUE(store->CommitBatch(batch).ok());
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM kernel_scope_events"), "1");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM scope_events"), "1");
  EXPECT_EQ(QueryFile(path_, "SELECT count(*) FROM gpu_events"), "1");
}

TEST_F(StoreTraceTest, ASessionWithoutEventsLoadsAnEmptyTrace) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CommitBatch(SessionsBatch()).ok());
  absl::StatusOr<StoredTrace> trace = store->LoadTrace(2);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->nodes.empty());
  EXPECT_TRUE(trace->scope_events.empty());
  EXPECT_TRUE(trace->gpu_events.empty());
}

TEST_F(StoreTraceTest, EventsSurviveReopening) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Batch batch = SessionsBatch();
    batch.scope_events = {{1, 1, 0, 16, 4242, 1, 900, 2000}};
    ASSERT_TRUE(store->CommitBatch(batch).ok());
  }
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<StoredTrace> trace = store->LoadTrace(1);
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_EQ(trace->scope_events.size(), 1u);
  EXPECT_EQ(trace->scope_events[0].end_ns, 2000u);
  EXPECT_EQ(QueryFile(path_, "PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace protond::store
