// ProtondService: the queries and the registry answer without waiting for the ingest cycle, and
// what they keep answers only the same question (testing/service_test_fixture.h).
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/record/record_format.h"
#include "common/record/test_records.h"
#include "daemon/service/testing/service_test_fixture.h"
#include "daemon/store/testing/session_batches.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/tree/profile_view.h"

namespace protond::service {
namespace {

using testing::ProtondServiceTest;

class QueriesTest : public ProtondServiceTest {
 protected:
  // Starts the service again over its store with --always-on's default policy (windows of 2 s
  // every 60 s, kept 24 h, hours 14 days), and runs one cycle.
  void RestartAlwaysOn() {
    service_.reset();
    ServiceOptions options = Options();
    options.always_on = always_on::WindowPolicy{};
    auto reopened = ProtondService::Create(options);
    ASSERT_TRUE(reopened.ok()) << reopened.status();
    service_ = std::move(*reopened);
    ASSERT_TRUE(service_->RunIngestCycle().ok());
  }
  // Another connection holds the store's write lock, as a long commit or a slow disk would.
  void BlockTheStore() {
    ASSERT_EQ(sqlite3_open((folder_ + "/store.db").c_str(), &blocker_), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(blocker_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  // A flush in the background: it takes the service's lock at once and holds it until the store
  // lets its commit through (SQLite's busy timeout is 5 s). What waited for that lock would
  // answer only after the flush.
  void FlushInTheBackground(uint64_t session_id) {
    flush_ = std::async(std::launch::async, [this, session_id] {
      absl::Status status = service_->FlushSession(self_, session_id).status();
      flushed_ = true;
      return status;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  // Lets the store go: the flush then ends.
  void UnblockTheStore() {
    ASSERT_EQ(sqlite3_exec(blocker_, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(blocker_);
    EXPECT_TRUE(flush_.get().ok());
  }

  sqlite3* blocker_ = nullptr;
  std::atomic<bool> flushed_ = false;
  std::future<absl::Status> flush_;
};
using ::testing::StartsWith;

// The queries read what the last cycle published and the store as committed: they answer while
// a cycle waits for the store (here another connection holds its write lock; a long commit or a
// slow disk is the same for them), and the cycle goes on once it can.
TEST_F(QueriesTest, QueriesAnswerWhileTheIngestCycleWaitsForTheStore) {
  RegisterSelf();
  absl::StatusOr<v1::Session> done = service_->StartSession(self_, "done");
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_TRUE(service_->StopSession(self_, done->id()).ok());
  absl::StatusOr<v1::Session> running = service_->StartSession(self_, "running");
  ASSERT_TRUE(running.ok()) << running.status();

  BlockTheStore();
  // Records in the lane give the next cycle something to commit.
  [[maybe_unused]] const ring::LaneWriter lane = LaneOfSession(running->id());  // held meanwhile
  FlushInTheBackground(running->id());
  const v1::ListSessionsResponse sessions = service_->ListSessions(self_);
  ASSERT_EQ(sessions.sessions_size(), 2);
  EXPECT_EQ(sessions.sessions(1).state(), v1::Session::RUNNING);
  EXPECT_TRUE(service_->GetTree(self_, done->id()).ok());
  EXPECT_TRUE(service_->GetTree(self_, running->id()).ok());
  EXPECT_FALSE(flushed_) << "the queries waited for the cycle";
  UnblockTheStore();
}

// The registry has a lock of its own: while a cycle waits for the store, `protonctl processes`
// answers, and a control connection takes its next command and gives its answer.
TEST_F(QueriesTest, ProcessesAndCommandsAnswerWhileTheIngestCycleWaitsForTheStore) {
  RegisterSelf();
  absl::StatusOr<v1::Session> running = service_->StartSession(self_, "running");
  ASSERT_TRUE(running.ok()) << running.status();
  BlockTheStore();
  // A process that registers again is written by the next cycle, which then waits for the store.
  RegisterSelf();
  FlushInTheBackground(running->id());
  const v1::ListProcessesResponse processes = service_->ListProcesses(self_);
  ASSERT_EQ(processes.processes_size(), 1);
  EXPECT_EQ(processes.processes(0).pid(), self_.pid);
  EXPECT_FALSE(service_->NextCommand(process_id_, std::chrono::milliseconds(0)));
  v1::CommandResult late;
  late.set_process_id(process_id_);
  late.set_command_id(12345);
  EXPECT_TRUE(service_->Acknowledge(self_, late).ok());
  EXPECT_FALSE(flushed_) << "the registry waited for the cycle";
  UnblockTheStore();
}

// A stopped session's tree is kept for the next query: the kept one must answer only the same
// question (the same session and rank).
TEST_F(ProtondServiceTest, KeptTreeAnswersOnlyTheSameSessionAndRank) {
  RegisterSelf();
  absl::StatusOr<v1::Session> first = service_->StartSession(self_, "first");
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(service_->StopSession(self_, first->id()).ok());
  absl::StatusOr<v1::Session> second = service_->StartSession(self_, "second");
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_TRUE(service_->StopSession(self_, second->id()).ok());

  for (int query = 0; query < 2; ++query) {
    absl::StatusOr<v1::Tree> tree = service_->GetTree(self_, first->id());
    ASSERT_TRUE(tree.ok()) << tree.status();
    EXPECT_EQ(tree->nodes_size(), 1);
    EXPECT_EQ(service_->GetTree(self_, first->id(), "3").status().ToString(),
              absl::StrCat("NOT_FOUND: session ", first->id(),
                           " has no process of rank 3 (its processes have no RANK)"));
  }
  Peer other_user = self_;
  ++other_user.uid;
  EXPECT_EQ(service_->GetTree(other_user, first->id()).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(service_->GetTree(self_, 99).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(service_->GetTree(self_, second->id()).ok());
}

// A tree session's collective calls reach GetCollectives with the process's pid and the scope
// they were called from; only the session's owner (or root) reads them.
TEST_F(ProtondServiceTest, GetCollectivesAnswersATreeSessionsCallsToItsOwnerOnly) {
  RegisterSelf();
  absl::StatusOr<v1::Session> session = service_->StartSession(self_, "ddp");
  ASSERT_TRUE(session.ok()) << session.status();
  ring::LaneWriter lane = LaneOfSession(session->id());
  std::vector<uint8_t> step(record::NamedRecordBytes(4));
  record::EncodeContextDef(1, record::kRootContextId, "step", step.data());
  const record::CollectiveRecord call = record::testing::Collective(
      1, 0, {.start = 1'000, .end = 2'000, .comm_hash = 77, .seq = 3, .count = 256});
  ASSERT_TRUE(lane.TryWrite(step.data(), step.size()) && lane.TryWrite(&call, sizeof(call)));
  ASSERT_TRUE(service_->StopSession(self_, session->id()).ok());

  absl::StatusOr<v1::Collectives> collectives = service_->GetCollectives(self_, session->id());
  ASSERT_TRUE(collectives.ok()) << collectives.status();
  ASSERT_EQ(collectives->events_size(), 1);
  const v1::CollectiveEvent& event = collectives->events(0);
  EXPECT_EQ(event.process_id(), process_id_);
  EXPECT_EQ(event.pid(), self_.pid);
  EXPECT_EQ(event.scope_path(), "step");
  EXPECT_EQ(event.comm_hash(), 77u);
  EXPECT_EQ(event.seq(), 3u);
  EXPECT_EQ(event.op(), "AllReduce");
  EXPECT_EQ(event.start_ns(), 1'000u);
  EXPECT_EQ(event.end_ns(), 2'000u);
  Peer other_user = self_;
  ++other_user.uid;
  EXPECT_EQ(service_->GetCollectives(other_user, session->id()).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(service_->GetCollectives(self_, 99).status().code(), absl::StatusCode::kNotFound);
}

// The daemon's view of a stopped session is protonctl's rendering of its tree, and the kept view
// answers only the same options.
TEST_F(ProtondServiceTest, ViewTreeRendersAsProtonctlWithTheRequestsOptions) {
  RegisterSelf();
  absl::StatusOr<v1::Session> session = service_->StartSession(self_, "viewed");
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE(service_->StopSession(self_, session->id()).ok());
  absl::StatusOr<v1::Tree> tree = service_->GetTree(self_, session->id());
  ASSERT_TRUE(tree.ok()) << tree.status();

  view::ViewOptions options;
  v1::ViewTreeRequest request;
  request.set_session_id(session->id());
  *request.mutable_options() = view::ViewOptionsToProto(options);
  view::ViewOptions sorted = options;
  sorted.print_sorted = true;
  v1::ViewTreeRequest sorted_request = request;
  *sorted_request.mutable_options() = view::ViewOptionsToProto(sorted);
  for (int query = 0; query < 2; ++query) {
    EXPECT_EQ(*service_->ViewTree(self_, request), *view::RenderProfile(*tree, options));
    EXPECT_EQ(*service_->ViewTree(self_, sorted_request), *view::RenderProfile(*tree, sorted));
  }
  EXPECT_NE(*view::RenderProfile(*tree, options), *view::RenderProfile(*tree, sorted));

  request.mutable_options()->set_include("(");
  EXPECT_EQ(service_->ViewTree(self_, request).status().code(), absl::StatusCode::kInvalidArgument);
  request.mutable_options()->set_include("");
  request.mutable_options()->set_depth(0);
  EXPECT_EQ(service_->ViewTree(self_, request).status().ToString(),
            "INVALID_ARGUMENT: a tree view's depth must be at least 1, not 0");
  request.mutable_options()->set_depth(1);
  request.set_session_id(99);
  EXPECT_EQ(service_->ViewTree(self_, request).status().code(), absl::StatusCode::kNotFound);
}

// Each cycle publishes a new list of sessions (a running one is described anew every time): a
// query that reads the list while a cycle replaces it must hold what it reads. ASan (the test
// command's sanitizer run) saw ListSessions read a freed list when it did not.
TEST_F(QueriesTest, QueriesHoldThePublishedListWhileCyclesReplaceIt) {
  RegisterSelf();
  ASSERT_TRUE(service_->StartSession(self_, "running").ok());
  std::atomic<bool> done = false;
  std::thread cycles([&] {
    while (!done) ASSERT_TRUE(service_->RunIngestCycle().ok());
  });
  for (int i = 0; i < 2000; ++i) {
    ASSERT_EQ(service_->ListSessions(self_).sessions_size(), 1);
    ASSERT_EQ(service_->ListProcesses(self_).processes(0).sessions_size(), 1);
  }
  done = true;
  cycles.join();
}

// Windows of two users as an older protond stored them (no summary): protond summarizes them
// after a cycle, and ListHistory lists each user's own, selected, oldest first. Their process
// (pid 42, "python train.py") never registered with this protond: pid and command select them
// as the store has it.
TEST_F(QueriesTest, ListHistoryListsTheCallersOwnWindowsWithTheirSummaries) {
  Peer user = self_;
  user.uid = 1000;
  Peer other = self_;
  other.uid = 1001;
  Peer root = self_;
  root.uid = 0;
  service_.reset();
  {
    absl::StatusOr<std::unique_ptr<store::Store>> store = store::Store::Open(Options().store_path);
    ASSERT_TRUE(store.ok()) << store.status();
    const int64_t second = 1'000'000'000;
    // id, uid, start, window or by hand, job: window 4 starts before window 1.
    const std::tuple<uint64_t, uint32_t, int64_t, bool, std::string> sessions[] = {
        {1, user.uid, 20 * second, true, ""},
        {2, other.uid, 10 * second, true, ""},
        {3, user.uid, 5 * second, false, ""},
        {4, user.uid, 10 * second, true, "77"}};
    for (const auto& [id, uid, start, window, job] : sessions) {
      store::Batch batch = store::testing::StoppedSessionBatch(id, window, 2, start);
      batch.sessions[0].uid = uid;
      batch.sessions[0].job = job;
      ASSERT_TRUE((*store)->CommitBatch(batch).ok());
    }
  }
  auto reopened = ProtondService::Create(Options());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  service_ = std::move(*reopened);
  ASSERT_TRUE(service_->RunIngestCycle().ok());

  const auto ids = [this](const Peer& peer, const v1::ListHistoryRequest& request) {
    absl::StatusOr<v1::ListHistoryResponse> listed = service_->ListHistory(peer, request);
    EXPECT_TRUE(listed.ok()) << listed.status();
    std::string text;
    for (const v1::Session& window : listed->windows()) {
      EXPECT_TRUE(window.has_window_summary()) << window.id();
      absl::StrAppend(&text, text.empty() ? "" : ",", window.id());
    }
    return absl::StrCat(text, " of ", listed->total_windows());
  };
  EXPECT_EQ(ids(user, {}), "4,1 of 2");
  EXPECT_EQ(ids(other, {}), "2 of 1");
  EXPECT_EQ(ids(root, {}), "2,4,1 of 3");
  v1::ListHistoryRequest by_job;
  by_job.set_job("77");
  EXPECT_EQ(ids(user, by_job), "4 of 2");
  EXPECT_EQ(ids(other, by_job), " of 1");
  v1::ListHistoryRequest range;
  range.set_since_unix_ns(15'000'000'000);
  EXPECT_EQ(ids(user, range), "1 of 2");
  range.clear_since_unix_ns();
  range.set_until_unix_ns(15'000'000'000);
  EXPECT_EQ(ids(root, range), "2,4 of 3");
  v1::ListHistoryRequest by_pid;
  by_pid.set_pid(42);
  EXPECT_EQ(ids(user, by_pid), "4,1 of 2");
  by_pid.set_pid(43);
  EXPECT_EQ(ids(user, by_pid), " of 2");
  v1::ListHistoryRequest by_command;
  by_command.set_command("train");
  EXPECT_EQ(ids(root, by_command), "2,4,1 of 3");

  // GetRangeTree merges what ListHistory selects for the caller: each window's tree is a chain
  // of two "step" nodes, counted once and with 5 flops each.
  const auto merged = [this](const Peer& peer, const v1::ListHistoryRequest& request) {
    absl::StatusOr<v1::RangeTree> range = service_->GetRangeTree(peer, request);
    EXPECT_TRUE(range.ok()) << range.status();
    if (!range.ok()) return std::string();
    std::string text;
    for (const v1::Session& window : range->windows()) {
      absl::StrAppend(&text, text.empty() ? "" : ",", window.id());
    }
    for (const v1::TreeNode& node : range->tree().nodes()) {
      if (node.name() != "step" || node.parent_id() != 0) continue;
      absl::StrAppend(&text, ": step x", node.count());
      for (const v1::Metric& metric : node.metrics()) {
        if (metric.name() == "flops") absl::StrAppend(&text, ", ", metric.int_value(), " flops");
      }
    }
    return text;
  };
  EXPECT_EQ(merged(user, {}), "4,1: step x2, 10 flops");
  EXPECT_EQ(merged(other, {}), "2: step x1, 5 flops");
  EXPECT_EQ(merged(root, range), "2,4: step x2, 10 flops");
  EXPECT_EQ(merged(other, by_job), "");  // none selected: no windows, no tree
  EXPECT_FALSE(service_->GetRangeTree(other, by_job)->has_tree());

  // The summaries were stored: after a restart they are listed before any cycle (no GPU work
  // in these trees).
  service_.reset();
  reopened = ProtondService::Create(Options());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  service_ = std::move(*reopened);
  EXPECT_EQ(ids(user, {}), "4,1 of 2");
  const v1::WindowSummary summary = service_->ListHistory(user, {})->windows(0).window_summary();
  EXPECT_EQ(summary.gpu_time_ns(), 0);
  EXPECT_EQ(summary.gpus_used(), 1u);
  EXPECT_EQ(summary.top_kernel(), "");

  v1::ListHistoryRequest bad;
  bad.set_command("(train");
  EXPECT_EQ(service_->ListHistory(user, bad).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(service_->GetRangeTree(user, bad).status().code(), absl::StatusCode::kInvalidArgument);
}

// GetRangeTree merges a batch of windows at a time: 150 windows (more than two batches) are all
// in the sum, each once.
TEST_F(QueriesTest, ARangeOfManyWindowsIsMergedWhole) {
  service_.reset();
  {
    absl::StatusOr<std::unique_ptr<store::Store>> store = store::Store::Open(Options().store_path);
    ASSERT_TRUE(store.ok()) << store.status();
    for (uint64_t id = 1; id <= 150; ++id) {
      store::Batch batch = store::testing::StoppedSessionBatch(
          id, /*always_on_window=*/true, 2, static_cast<int64_t>(id) * 60'000'000'000);
      batch.sessions[0].uid = 1000;
      ASSERT_TRUE((*store)->CommitBatch(batch).ok());
    }
  }
  auto reopened = ProtondService::Create(Options());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  service_ = std::move(*reopened);
  Peer user = self_;
  user.uid = 1000;
  absl::StatusOr<v1::RangeTree> range = service_->GetRangeTree(user, {});
  ASSERT_TRUE(range.ok()) << range.status();
  EXPECT_EQ(range->windows_size(), 150);
  uint64_t steps = 0;
  int64_t flops = 0;
  for (const v1::TreeNode& node : range->tree().nodes()) {
    if (node.name() != "step" || node.parent_id() != 0) continue;
    steps = node.count();
    for (const v1::Metric& metric : node.metrics()) {
      if (metric.name() == "flops") flops = metric.int_value();
    }
  }
  EXPECT_EQ(steps, 150u);
  EXPECT_EQ(flops, 750);
}

// A stopped window of job 981 whose two ranks made `calls` all-reduces, rank 1 (pid 43) 10 ms
// after rank 0 each time, started `start_ago_s` seconds ago and lasting 2 s.
store::Batch JobWindowBatch(uint64_t session_id, const std::string& job, int64_t start_ago_s,
                            uint64_t calls = 40) {
  const int64_t ms = 1'000'000;
  const int64_t start = sessions::NowUnixNs() - start_ago_s * 1000 * ms;
  store::Batch batch = store::testing::StoppedSessionBatch(session_id, true, 1, start);
  batch.sessions[0].name = "window job " + job;
  batch.sessions[0].job = job;
  batch.sessions[0].end_time_unix_ns = start + 2000 * ms;
  batch.processes.push_back({2, 43, 1000, 778, "python train.py", false});
  batch.session_processes.push_back({session_id, 2, 100, 0});
  for (uint64_t seq = 0; seq < calls; ++seq) {
    const uint64_t rank0_start = 1'000 * ms + seq * 50 * ms;
    const uint64_t rank1_start = rank0_start + 10 * ms;
    for (uint32_t rank : {0u, 1u}) {
      batch.collective_events.push_back({session_id, rank + 1u, 0, seq, 1,
                                         rank == 0 ? rank0_start : rank1_start,
                                         rank1_start + ms / 2, 0x2a, seq, 1024, rank, 2,
                                         "AllReduce", "ncclFloat32", "RING", "LL"});
    }
  }
  return batch;
}

// When a job's window stops, protond judges its collective calls as `protonctl job` would and
// keeps the verdict with the window's summary: ListHistory answers it, and the metrics give the
// job's newest window's verdict while the job has had a window within 3 periods.
TEST_F(QueriesTest, AJobsWindowKeepsTheVerdictOnItsCollectiveCalls) {
  service_.reset();
  {
    absl::StatusOr<std::unique_ptr<store::Store>> store = store::Store::Open(Options().store_path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->CommitBatch(JobWindowBatch(1, "981", 10)).ok());
    ASSERT_TRUE((*store)->CommitBatch(JobWindowBatch(2, "ended", 3600)).ok());
    // Two days old, judged rank 0 late: merged into an hour (id 4, after the window) that names
    // rank 0 too (always_on/period_verdict.h); the metrics read the job's newest window, rank 1,
    // not that hour.
    ASSERT_TRUE((*store)->CommitBatch(JobWindowBatch(3, "981", 48 * 3600)).ok());
    ASSERT_TRUE(
        (*store)->PutWindowSummary({3, 0, 1, "", 0, {80, 40, 0, 42, 1e6, 40e6, 0.02}}).ok());
  }
  ASSERT_NO_FATAL_FAILURE(RestartAlwaysOn());

  Peer root = self_;  // the windows are uid 0's
  root.uid = 0;
  v1::ListHistoryRequest of_job;
  of_job.set_job("981");
  absl::StatusOr<v1::ListHistoryResponse> listed = service_->ListHistory(root, of_job);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->windows_size(), 2);
  EXPECT_EQ(listed->windows(0).period(), v1::Session::HOUR);
  EXPECT_EQ(listed->windows(0).window_summary().verdict().judged_calls(), 40u);
  EXPECT_EQ(listed->windows(0).window_summary().verdict().late_rank(), 0);
  ASSERT_TRUE(listed->windows(1).window_summary().has_verdict());
  const v1::WindowVerdict& verdict = listed->windows(1).window_summary().verdict();
  EXPECT_EQ(verdict.collective_calls(), 80u);
  EXPECT_EQ(verdict.judged_calls(), 40u);
  EXPECT_EQ(verdict.late_rank(), 1);
  EXPECT_EQ(verdict.late_pid(), 43u);
  EXPECT_DOUBLE_EQ(verdict.late_mean_ns(), 10e6);
  EXPECT_DOUBLE_EQ(verdict.others_wait_ns(), 400e6);
  EXPECT_DOUBLE_EQ(verdict.others_wait_share(), 0.2);

  // Job "ended" had its last window an hour ago: more than 3 periods of 60 s, no gauges.
  const metrics::Snapshot snapshot = service_->MetricsSnapshot();
  ASSERT_EQ(snapshot.always_on_jobs.size(), 1u);
  EXPECT_EQ(snapshot.always_on_jobs[0].job_untrusted, "981");
  EXPECT_EQ(snapshot.always_on_jobs[0].late_rank, 1);
  EXPECT_DOUBLE_EQ(snapshot.always_on_jobs[0].late_mean_seconds, 0.01);
  EXPECT_DOUBLE_EQ(snapshot.always_on_jobs[0].wait_share, 0.2);

  // Kept: after a restart the verdict is listed before any cycle.
  service_.reset();
  auto reopened = ProtondService::Create(Options());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  service_ = std::move(*reopened);
  listed = service_->ListHistory(root, of_job);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->windows_size(), 2);
  EXPECT_EQ(listed->windows(1).window_summary().verdict().late_pid(), 43u);
}

// The job's last window caught 4 of its calls as it ended: too few to name any rank, so the
// metrics keep the window before it, which named rank 1.
TEST_F(QueriesTest, AJobsLastWindowWithTooFewCallsLeavesTheMetricsToTheOneBefore) {
  service_.reset();
  {
    absl::StatusOr<std::unique_ptr<store::Store>> store = store::Store::Open(Options().store_path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->CommitBatch(JobWindowBatch(1, "981", 10)).ok());
    ASSERT_TRUE((*store)->CommitBatch(JobWindowBatch(2, "981", 5, /*calls=*/4)).ok());
  }
  ASSERT_NO_FATAL_FAILURE(RestartAlwaysOn());
  Peer root = self_;
  root.uid = 0;
  v1::ListHistoryRequest of_job;
  of_job.set_job("981");
  absl::StatusOr<v1::ListHistoryResponse> listed = service_->ListHistory(root, of_job);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->windows_size(), 2);
  EXPECT_EQ(listed->windows(1).window_summary().verdict().judged_calls(), 4u);
  EXPECT_EQ(listed->windows(1).window_summary().verdict().late_rank(), -1);
  const metrics::Snapshot snapshot = service_->MetricsSnapshot();
  ASSERT_EQ(snapshot.always_on_jobs.size(), 1u);
  EXPECT_EQ(snapshot.always_on_jobs[0].late_rank, 1);
  EXPECT_DOUBLE_EQ(snapshot.always_on_jobs[0].late_mean_seconds, 0.01);
}

// With --always-on, windows whose hour ended more than --keep-windows ago are merged into one
// hour per process: ListHistory lists it as an HOUR with its windows' recorded time, its tree is
// their sum, and the windows are gone; a younger window stays, and so does a restart.
TEST_F(QueriesTest, OldWindowsAreListedAsOneHourOfTheirProcess) {
  service_.reset();
  const int64_t hour_ns = int64_t{3600} * 1'000'000'000;
  // The start of the hour that began 48 hours ago, and a window an hour ago.
  const int64_t old_hour = (sessions::NowUnixNs() - 48 * hour_ns) / hour_ns * hour_ns;
  {
    absl::StatusOr<std::unique_ptr<store::Store>> store = store::Store::Open(Options().store_path);
    ASSERT_TRUE(store.ok()) << store.status();
    for (uint64_t id = 1; id <= 3; ++id) {
      store::Batch batch = store::testing::StoppedSessionBatch(
          id, true, 2, old_hour + static_cast<int64_t>(id) * 60'000'000'000);
      batch.sessions[0].end_time_unix_ns = batch.sessions[0].start_time_unix_ns + 2'000'000'000;
      ASSERT_TRUE((*store)->CommitBatch(batch).ok());
    }
    ASSERT_TRUE((*store)
                    ->CommitBatch(store::testing::StoppedSessionBatch(
                        4, true, 2, sessions::NowUnixNs() - hour_ns))
                    .ok());
  }
  ASSERT_NO_FATAL_FAILURE(RestartAlwaysOn());

  Peer root = self_;  // the windows are uid 0's
  root.uid = 0;
  const auto listed = [&] {
    absl::StatusOr<v1::ListHistoryResponse> history = service_->ListHistory(root, {});
    EXPECT_TRUE(history.ok()) << history.status();
    return history.ok() ? *history : v1::ListHistoryResponse{};
  };
  v1::ListHistoryResponse history = listed();
  ASSERT_EQ(history.windows_size(), 2);
  const v1::Session& hour = history.windows(0);
  EXPECT_EQ(hour.id(), 5u);
  EXPECT_EQ(hour.name(), "hour pid 42");
  EXPECT_EQ(hour.period(), v1::Session::HOUR);
  EXPECT_EQ(hour.start_time_unix_ns(), old_hour);
  EXPECT_EQ(hour.end_time_unix_ns(), old_hour + hour_ns);
  EXPECT_EQ(hour.records(), 300u);
  EXPECT_EQ(hour.window_summary().recorded_ns(), int64_t{3} * 2'000'000'000);
  EXPECT_EQ(history.windows(1).id(), 4u);
  EXPECT_EQ(history.windows(1).period(), v1::Session::WINDOW);
  absl::StatusOr<v1::Tree> tree = service_->GetTree(root, 5);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes_size(), 3);  // ROOT and the chain of two "step"s
  EXPECT_EQ(tree->nodes(2).count(), 3u);
  ASSERT_EQ(tree->nodes(2).metrics_size(), 1);
  EXPECT_EQ(tree->nodes(2).metrics(0).int_value(), 3 * 5);  // flops 5 in each window

  ASSERT_NO_FATAL_FAILURE(RestartAlwaysOn());
  history = listed();
  ASSERT_EQ(history.windows_size(), 2);
  EXPECT_EQ(history.windows(0).period(), v1::Session::HOUR);
}

}  // namespace
}  // namespace protond::service
