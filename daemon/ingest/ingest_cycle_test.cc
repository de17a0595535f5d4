// The ingest cycle over a real region (written with the shim's writer, the real other side) and
// a store in a temporary folder.
#include "daemon/ingest/ingest_cycle.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "common/clock/tsc_clock.h"
#include "common/record/record_format.h"
#include "common/ring/ring_layout.h"
#include "daemon/registry/proc_stat.h"
#include "daemon/store/testing/test_files.h"
#include "gtest/gtest.h"
#include "shim/ring/ring_writer.h"
#include "shim/scopes/recorder.h"

namespace protond::ingest {
namespace {

class IngestCycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto region = ring::WritableRegion::Create({2, ring::kMinLaneDataBytes});
    ASSERT_TRUE(region.ok()) << region.status();
    region_ = std::make_unique<ring::WritableRegion>(std::move(*region));
    lane_ = region_->ClaimLane(static_cast<uint32_t>(gettid()));
    ASSERT_TRUE(lane_.valid());
    Restart();
  }

  // A daemon starting over the store as it is: a new table and cycle.
  void Restart() {
    auto store = store::Store::Open(folder_.File("store.db"));
    ASSERT_TRUE(store.ok()) << store.status();
    sessions_ = std::make_unique<sessions::SessionTable>();
    registry_ = std::make_unique<registry::ProcessRegistry>();
    cycle_ = std::make_unique<IngestCycle>(std::move(*store), *sessions_, *registry_);
    ASSERT_TRUE(cycle_->Load().ok());
  }

  // This process registers, as RegisterProcess does; a start time not its own makes it one that
  // has exited once its connection ends.
  uint64_t Attach(uint64_t start_ticks = registry::ReadStartTicks(getpid())) {
    auto reader = ring::RegionReader::Attach(dup(region_->fd()), region_->bytes());
    EXPECT_TRUE(reader.ok()) << reader.status();
    const store::ProcessRow identity{0, static_cast<uint32_t>(getpid()), getuid(), start_ticks,
                                     "ingest_cycle_test"};
    absl::StatusOr<store::ProcessRow> row = cycle_->AddProcess(identity, std::move(*reader));
    EXPECT_TRUE(row.ok()) << row.status();
    registry_->Register(*row, "");
    return row->process_id;
  }

  template <typename T>
  void Write(const T& record) {
    ASSERT_TRUE(lane_.TryWrite(&record, sizeof(record)));
  }
  // `steps` scopes named "step" on the lane, into `session_id`.
  void WriteSteps(uint64_t session_id, int steps) {
    Write(record::MakeSessionBegin(session_id));
    if (!context_defined_) {
      std::vector<uint8_t> context(record::NamedRecordBytes(4));
      record::EncodeContextDef(1, 0, "step", context.data());
      ASSERT_TRUE(lane_.TryWrite(context.data(), context.size()));
      context_defined_ = true;
    }
    for (int i = 0; i < steps; ++i) {
      Write(record::MakeTimed(record::Kind::kScopeEnter, 1, 100 * i));
      Write(record::MakeTimed(record::Kind::kScopeExit, 1, 100 * i + 50));
    }
  }
  uint64_t StoredStepCount(uint64_t session_id) {
    absl::StatusOr<store::StoredTree> tree = cycle_->store().LoadTree(session_id);
    EXPECT_TRUE(tree.ok()) << tree.status();
    uint64_t count = 0;
    for (const store::NodeStatsRow& stats : tree->node_stats) count += stats.count;
    return count;
  }
  const ring::LaneHeader& Lane() const { return *ring::LaneHeaderAt(region_->base(), 0); }

  store::testing::TempDir folder_;
  std::unique_ptr<ring::WritableRegion> region_;
  ring::LaneWriter lane_;
  bool context_defined_ = false;
  std::unique_ptr<sessions::SessionTable> sessions_;
  std::unique_ptr<registry::ProcessRegistry> registry_;
  std::unique_ptr<IngestCycle> cycle_;
};

TEST_F(IngestCycleTest, RecordsReachTheSessionsTreeAndTheStoreAndTheirSpaceIsHandedBack) {
  const uint64_t process_id = Attach();
  sessions::Session& session = sessions_->Add(getuid(), "s", v1::Session::TREE, {});
  cycle_->Join(process_id, session);
  Write(record::MakeThreadBegin(static_cast<uint32_t>(gettid())));
  WriteSteps(session.row.session_id, 3);
  absl::StatusOr<Committed> committed = cycle_->Run();
  ASSERT_TRUE(committed.ok()) << committed.status();
  EXPECT_TRUE(committed->sessions.contains(session.row.session_id));
  EXPECT_EQ(StoredStepCount(session.row.session_id), 3u);
  EXPECT_EQ(session.processes.at(process_id).records, 6u);  // each enter and exit
  EXPECT_EQ(Lane().read_pos.load(), Lane().write_pos.load());
}

// Exactly once: a failed commit hands no ring space back and puts the sessions back as stored;
// the next cycle reads the same records again and stores each once.
TEST_F(IngestCycleTest, AfterAFailedCommitTheNextCycleStoresEachRecordOnce) {
  const uint64_t process_id = Attach();
  sessions::Session& session = sessions_->Add(getuid(), "s", v1::Session::TREE, {});
  cycle_->Join(process_id, session);
  Write(record::MakeThreadBegin(static_cast<uint32_t>(gettid())));
  WriteSteps(session.row.session_id, 2);
  ASSERT_TRUE(cycle_->Run().ok());
  const uint64_t committed_records = session.processes.at(process_id).records;
  WriteSteps(session.row.session_id, 3);

  signal(SIGXFSZ, SIG_IGN);  // as protond does: a write past the limit fails, it does not kill
  rlimit room;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &room), 0);
  const rlimit full = {1, room.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &full), 0);
  const absl::StatusOr<Committed> failed = cycle_->Run();
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &room), 0);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(cycle_->commit_failures(), 1u);
  EXPECT_LT(Lane().read_pos.load(), Lane().write_pos.load()) << "space handed back uncommitted";
  EXPECT_EQ(session.processes.at(process_id).records, committed_records) << "not as stored";

  ASSERT_TRUE(cycle_->Run().ok());
  EXPECT_EQ(StoredStepCount(session.row.session_id), 5u);
  EXPECT_EQ(Lane().read_pos.load(), Lane().write_pos.load());
}

// A daemon restart: the process registers again and its lane goes on from the committed
// position, neither reading again what was stored nor skipping what was not.
TEST_F(IngestCycleTest, AProcessResumesFromItsCommittedLanesAfterARestart) {
  const uint64_t process_id = Attach();
  sessions::Session& first = sessions_->Add(getuid(), "s", v1::Session::TREE, {});
  const uint64_t session_id = first.row.session_id;
  cycle_->Join(process_id, first);
  Write(record::MakeThreadBegin(static_cast<uint32_t>(gettid())));
  WriteSteps(session_id, 2);
  ASSERT_TRUE(cycle_->Run().ok());

  Restart();
  EXPECT_EQ(Attach(), process_id);
  WriteSteps(session_id, 4);
  ASSERT_TRUE(cycle_->Run().ok());
  EXPECT_EQ(StoredStepCount(session_id), 6u);
}

// A process whose connection ended and whose pid no longer names it has exited: what it wrote
// last is still drained, and then it is marked exited, in the registry and the store.
TEST_F(IngestCycleTest, AnExitedProcessIsDrainedOnceMoreAndMarkedExited) {
  const uint64_t process_id = Attach(/*start_ticks=*/1);
  sessions::Session& session = sessions_->Add(getuid(), "s", v1::Session::TREE, {});
  cycle_->Join(process_id, session);
  ASSERT_TRUE(cycle_->Run().ok());
  Write(record::MakeThreadBegin(static_cast<uint32_t>(gettid())));
  WriteSteps(session.row.session_id, 2);
  registry_->Disconnect(process_id);
  ASSERT_TRUE(cycle_->Run().ok());
  EXPECT_EQ(StoredStepCount(session.row.session_id), 2u);
  EXPECT_TRUE(registry_->Find(process_id)->row.exited);
  ASSERT_TRUE(cycle_->Run().ok());  // writes the exited row
  absl::StatusOr<std::optional<store::StoredProcess>> stored =
      cycle_->store().FindLiveProcess(static_cast<uint32_t>(getpid()), 1);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_FALSE(stored->has_value()) << "the store still has it live";
}

// What a process records changes its running sessions only: its stopped ones are not described
// anew for the queries every cycle (under load that was every stopped session of a busy process).
TEST_F(IngestCycleTest, RecordsOfAProcessLeaveItsStoppedSessionsPublishedAsTheyWere) {
  const uint64_t process_id = Attach();
  sessions::Session& stopped = sessions_->Add(getuid(), "stopped", v1::Session::TREE, {});
  cycle_->Join(process_id, stopped);
  ASSERT_TRUE(cycle_->Run().ok());
  stopped.row.state = store::SessionState::kStopped;
  stopped.changed = true;
  ASSERT_TRUE(cycle_->Run().ok());
  stopped.tree.reset();
  sessions::Session& running = sessions_->Add(getuid(), "running", v1::Session::TREE, {});
  cycle_->Join(process_id, running);
  sessions::PublishedSessions published;
  sessions_->Publish(registry_->Snapshot(), published);
  const auto before = published.Find(stopped.row.session_id);

  Write(record::MakeThreadBegin(static_cast<uint32_t>(gettid())));
  WriteSteps(running.row.session_id, 2);
  ASSERT_TRUE(cycle_->Run().ok());
  sessions_->Publish(registry_->Snapshot(), published);
  EXPECT_EQ(published.Find(stopped.row.session_id), before);
  EXPECT_EQ(published.Find(running.row.session_id)->proto.records(), 4u);
}

// The shim's recorder, on a thread of its own (its lanes are per thread), around a sleep: the
// scope's times as the daemon stores them must lie within CLOCK_MONOTONIC read around it, whatever
// clock the shim stamped with, and last at least the sleep.
class ShimClockTest : public IngestCycleTest,
                      public ::testing::WithParamInterface<shim::ScopeClock> {
 protected:
  struct Span {
    uint64_t before_ns = 0;
    uint64_t after_ns = 0;
  };
  // Records one scope "sleep" of `sleep` in `session_id` (the recorder enters before `between`
  // runs on this thread and exits after).
  Span RecordASleep(
      uint64_t session_id, std::chrono::milliseconds sleep,
      const std::function<void()>& between = [] {}) {
    shim::Recorder recorder(region_.get(), getpid(), GetParam());
    recorder.StartRecording(session_id);
    Span span;
    span.before_ns = clock::MonotonicNs();
    std::atomic<bool> entered = false;
    std::atomic<bool> go_on = false;
    std::thread thread([&] {
      recorder.EnterScope("sleep");
      entered = true;
      std::this_thread::sleep_for(sleep);
      while (!go_on) std::this_thread::yield();
      recorder.ExitScope("sleep");
    });
    while (!entered) std::this_thread::yield();
    between();
    go_on = true;
    thread.join();
    span.after_ns = clock::MonotonicNs();
    return span;
  }
  void ExpectTheSleepWithin(uint64_t session_id, const Span& span,
                            std::chrono::milliseconds sleep) {
    absl::StatusOr<store::StoredTrace> trace = cycle_->store().LoadTrace(session_id);
    ASSERT_TRUE(trace.ok()) << trace.status();
    ASSERT_EQ(trace->scope_events.size(), 1u);
    const store::ScopeEventRow& event = trace->scope_events[0];
    EXPECT_GE(event.begin_ns, span.before_ns);
    EXPECT_LE(event.end_ns, span.after_ns);
    EXPECT_GE(event.end_ns - event.begin_ns, static_cast<uint64_t>(sleep.count()) * 1'000'000);
    sessions::Session* session = sessions_->Find(session_id);
    EXPECT_TRUE(session->row.problems.empty()) << session->row.problems[0];
  }
};

TEST_P(ShimClockTest, ScopeTimesAreOnTheMonotonicClock) {
  if (GetParam() == shim::ScopeClock::kTsc && !clock::kHasTsc) GTEST_SKIP() << "no TSC";
  const uint64_t process_id = Attach();
  sessions::Session& session = sessions_->Add(getuid(), "s", v1::Session::TRACE, {});
  cycle_->Join(process_id, session);
  const Span span = RecordASleep(session.row.session_id, std::chrono::milliseconds(20));
  ASSERT_TRUE(cycle_->Run().ok());
  ExpectTheSleepWithin(session.row.session_id, span, std::chrono::milliseconds(20));
}

// A daemon restarted between a scope's enter and its exit has lost the clock pair before the
// enter: the exit is converted with protond's own reading of the TSC.
TEST_P(ShimClockTest, ScopeTimesSurviveARestartBetweenEnterAndExit) {
  if (GetParam() == shim::ScopeClock::kTsc && !clock::kHasTsc) GTEST_SKIP() << "no TSC";
  const uint64_t process_id = Attach();
  sessions::Session& first = sessions_->Add(getuid(), "s", v1::Session::TRACE, {});
  const uint64_t session_id = first.row.session_id;
  cycle_->Join(process_id, first);
  const Span span = RecordASleep(session_id, std::chrono::milliseconds(20), [&] {
    ASSERT_TRUE(cycle_->Run().ok());
    Restart();
    EXPECT_EQ(Attach(), process_id);
  });
  ASSERT_TRUE(cycle_->Run().ok());
  ExpectTheSleepWithin(session_id, span, std::chrono::milliseconds(20));
}

INSTANTIATE_TEST_SUITE_P(Clocks, ShimClockTest,
                         ::testing::Values(shim::ScopeClock::kMonotonic, shim::ScopeClock::kTsc),
                         [](const ::testing::TestParamInfo<shim::ScopeClock>& clock) {
                           return clock.param == shim::ScopeClock::kTsc ? "Tsc" : "Monotonic";
                         });

// A region of the previous record format (7), as a shim before the TSC wrote it: CLOCK_MONOTONIC
// timestamps and no clock pairs. It is still attached and read.
TEST_F(IngestCycleTest, ARegionOfRecordFormat7IsStillRead) {
  static_cast<ring::RegionHeader*>(region_->base())->record_format_version = 7;
  const uint64_t process_id = Attach();
  sessions::Session& session = sessions_->Add(getuid(), "s", v1::Session::TRACE, {});
  cycle_->Join(process_id, session);
  Write(record::MakeThreadBegin(static_cast<uint32_t>(gettid())));
  WriteSteps(session.row.session_id, 3);
  ASSERT_TRUE(cycle_->Run().ok());
  EXPECT_EQ(StoredStepCount(session.row.session_id), 3u);
  absl::StatusOr<store::StoredTree> tree = cycle_->store().LoadTree(session.row.session_id);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->node_stats.size(), 1u);
  EXPECT_EQ(tree->node_stats[0].duration_ns_sum, 150u);  // 3 x 50 ns, as written
  EXPECT_TRUE(session.row.problems.empty());
}

TEST_F(IngestCycleTest, DropsThatNoLaneCanNameAreCountedInTheLastSessionJoined) {
  const uint64_t process_id = Attach();
  sessions::Session& session = sessions_->Add(getuid(), "s", v1::Session::TREE, {});
  cycle_->Join(process_id, session);
  // Every lane taken: a third thread's records are dropped and counted region-wide.
  ring::LaneWriter second = region_->ClaimLane(static_cast<uint32_t>(gettid()) + 1);
  ASSERT_TRUE(second.valid());
  ring::LaneWriter none = region_->ClaimLane(static_cast<uint32_t>(gettid()) + 2);
  EXPECT_FALSE(none.valid());
  ASSERT_TRUE(cycle_->Run().ok());
  EXPECT_GT(session.processes.at(process_id).dropped_records, 0u);
}

}  // namespace
}  // namespace protond::ingest
