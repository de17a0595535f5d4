// ProtondService through its public API over a store in a temporary folder. This process plays
// the profiled one: it registers itself with a region of its own, as its shim would. Pushed
// commands are never answered here (an answer timeout of 0): no test waits.
#include "daemon/service/protond_service.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/record/record_format.h"
#include "common/ring/ring_layout.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shim/ring/ring_writer.h"

namespace protond::service {
namespace {

using ::testing::StartsWith;

class ProtondServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "protond_service_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
    auto service = ProtondService::Create({folder_ + "/store.db", std::chrono::hours(1)});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    service_->set_answer_timeout(std::chrono::milliseconds(0));
  }
  void TearDown() override {
    service_.reset();
    std::filesystem::remove_all(folder_);
  }

  // Registers this process, as its shim does on the control connection, as a task of `job`.
  void RegisterSelf(const std::string& slurm_job_id = "") {
    auto region = ring::WritableRegion::Create({4, ring::kMinLaneDataBytes});
    ASSERT_TRUE(region.ok()) << region.status();
    region_ = std::make_unique<ring::WritableRegion>(std::move(*region));
    v1::RegisterRequest request;
    request.set_pid(self_.pid);
    request.set_uid(self_.uid);
    request.set_region_fd(region_->fd());
    request.set_region_bytes(region_->bytes());
    request.mutable_job()->set_slurm_job_id(slurm_job_id);
    absl::StatusOr<uint64_t> process_id = service_->RegisterProcess(self_, request);
    ASSERT_TRUE(process_id.ok()) << process_id.status();
    process_id_ = *process_id;
  }

  // A caller over TCP whose token names this user, limited to `jobs` (none: no limit).
  Peer Remote(std::vector<std::string> jobs) const {
    Peer remote;
    remote.uid = self_.uid;
    remote.remote = true;
    remote.jobs = std::move(jobs);
    return remote;
  }

  const Peer self_ = [] {
    Peer peer;
    peer.pid = static_cast<uint32_t>(getpid());
    peer.uid = static_cast<uint32_t>(getuid());
    return peer;
  }();
  std::string folder_;
  std::unique_ptr<ring::WritableRegion> region_;
  uint64_t process_id_ = 0;  // RegisterSelf's
  std::unique_ptr<ProtondService> service_;
};

// Issue 27: a session whose start could not be stored (a full disk, a read-only store) stayed
// listed as running, with no process, forever, and the caller read raw SQL cut mid-statement.
TEST_F(ProtondServiceTest, ASessionTheStoreCannotTakeIsNotStartedAndTheErrorSaysWhy) {
  RegisterSelf();
  signal(SIGXFSZ, SIG_IGN);  // as protond does: a write past the limit fails, it does not kill
  rlimit room;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &room), 0);
  const rlimit full = {1, room.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &full), 0);
  absl::StatusOr<v1::Session> refused =
      service_->StartSession(self_, "first", v1::Session::TREE, "");
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &room), 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              StartsWith(absl::StrCat("cannot start session 'first': store ", folder_,
                                      "/store.db could not be read or written")));
  EXPECT_EQ(service_->ListSessions(self_).sessions_size(), 0);
  absl::StatusOr<v1::Session> started =
      service_->StartSession(self_, "second", v1::Session::TREE, "");
  ASSERT_TRUE(started.ok()) << started.status();
  ASSERT_EQ(service_->ListSessions(self_).sessions_size(), 1);
  EXPECT_EQ(service_->ListSessions(self_).sessions(0).name(), "second");
}

// Seen while writing protond_service_fuzzer, and reproduced with its input (a registration,
// then an attach of this process with duration_ms 10^14) before the fix: the session's end,
// start_time_unix_ns + duration_ms * 10^6, overflowed int64.
TEST_F(ProtondServiceTest, Fuzzed_AttachRefusesADurationPastInt64) {
  RegisterSelf();
  v1::AttachRequest request;
  request.add_pids(self_.pid);
  request.set_duration_ms(100'000'000'000'000);
  EXPECT_EQ(service_->Attach(self_, request).status().ToString(),
            "INVALID_ARGUMENT: duration of 100000000000000 ms is more than 100 years "
            "(3162240000000 ms)");
}

TEST_F(ProtondServiceTest, AttachTakesADurationOfAHundredYears) {
  RegisterSelf();
  v1::AttachRequest request;
  request.add_pids(self_.pid);
  request.set_duration_ms(3'162'240'000'000);
  absl::StatusOr<v1::AttachResponse> response = service_->Attach(self_, request);
  ASSERT_TRUE(response.ok()) << response.status();
  ASSERT_EQ(response->targets_size(), 1);
  EXPECT_EQ(response->targets(0).reason(), "did not answer within 0 ms");
  EXPECT_EQ(response->session().stop_at_unix_ns() - response->session().start_time_unix_ns(),
            int64_t{3'162'240'000'000} * 1'000'000);
}

// The ingest loop runs every commit_interval (an hour here), and at once when a lane is more
// than half full: a writer that waits for room (a stop's last GPU buffers) waits a few ms, not
// the interval.
TEST_F(ProtondServiceTest, ALaneMoreThanHalfFullIsDrainedWithoutWaitingForTheInterval) {
  RegisterSelf();
  absl::StatusOr<v1::Session> session = service_->StartSession(self_, "filling");
  ASSERT_TRUE(session.ok()) << session.status();
  ring::LaneWriter lane = region_->ClaimLane(static_cast<uint32_t>(gettid()));
  ASSERT_TRUE(lane.valid());
  const record::Header thread = record::MakeThreadBegin(static_cast<uint32_t>(gettid()));
  const auto begin = record::MakeSessionBegin(session->id());
  ASSERT_TRUE(lane.TryWrite(&thread, sizeof(thread)));
  ASSERT_TRUE(lane.TryWrite(&begin, sizeof(begin)));
  const auto state = record::MakeTimed(record::Kind::kStateExit, 0, 1);
  const uint64_t half = ring::kMinLaneDataBytes / 2;
  const uint64_t records = half / sizeof(state) + 1;
  for (uint64_t i = 0; i < records; ++i) ASSERT_TRUE(lane.TryWrite(&state, sizeof(state)));
  const ring::LaneHeader* header = ring::LaneHeaderAt(region_->base(), 0);
  for (int i = 0; i < 400 && header->read_pos.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(header->read_pos.load(), header->write_pos.load());
}

// The queries read what the last cycle published and the store as committed: they answer while
// a cycle waits for the store (here another connection holds its write lock; a long commit or a
// slow disk is the same for them), and the cycle goes on once it can.
TEST_F(ProtondServiceTest, QueriesAnswerWhileTheIngestCycleWaitsForTheStore) {
  RegisterSelf();
  absl::StatusOr<v1::Session> done = service_->StartSession(self_, "done");
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_TRUE(service_->StopSession(self_, done->id()).ok());
  absl::StatusOr<v1::Session> running = service_->StartSession(self_, "running");
  ASSERT_TRUE(running.ok()) << running.status();

  sqlite3* blocker = nullptr;
  ASSERT_EQ(sqlite3_open((folder_ + "/store.db").c_str(), &blocker), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  // Records in the lane give the next cycle something to commit.
  ring::LaneWriter lane = region_->ClaimLane(static_cast<uint32_t>(gettid()));
  ASSERT_TRUE(lane.valid());
  const record::Header thread = record::MakeThreadBegin(static_cast<uint32_t>(gettid()));
  const auto begin = record::MakeSessionBegin(running->id());
  ASSERT_TRUE(lane.TryWrite(&thread, sizeof(thread)));
  ASSERT_TRUE(lane.TryWrite(&begin, sizeof(begin)));
  std::atomic<bool> flushed = false;
  auto flush = std::async(std::launch::async, [&] {
    absl::Status status = service_->FlushSession(self_, running->id()).status();
    flushed = true;
    return status;
  });
  // The flush takes the service's lock at once and holds it until the store lets its commit
  // through (SQLite's busy timeout is 5 s): queries that waited for that lock would answer only
  // after the flush.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const v1::ListSessionsResponse sessions = service_->ListSessions(self_);
  ASSERT_EQ(sessions.sessions_size(), 2);
  EXPECT_EQ(sessions.sessions(1).state(), v1::Session::RUNNING);
  EXPECT_TRUE(service_->GetTree(self_, done->id()).ok());
  EXPECT_TRUE(service_->GetTree(self_, running->id()).ok());
  EXPECT_FALSE(flushed) << "the queries waited for the cycle";
  ASSERT_EQ(sqlite3_exec(blocker, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(blocker);
  EXPECT_TRUE(flush.get().ok());
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

TEST_F(ProtondServiceTest, ARemoteCallerCannotStartASessionOfItsOwn) {
  EXPECT_EQ(service_->StartSession(Remote({}), "x").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(service_->ListSessions(self_).sessions().empty());
}

// A token limited to jobs sees only their processes and the sessions made of them alone.
TEST_F(ProtondServiceTest, AJobLimitedTokenSeesAndTouchesOnlyItsJobs) {
  RegisterSelf("1234");
  ASSERT_TRUE(service_->StartSession(self_, "mine").ok());  // this process, job 1234
  const Peer job_1234 = Remote({"1234"});
  const Peer job_99 = Remote({"99"});
  EXPECT_EQ(service_->ListProcesses(job_1234).processes_size(), 1);
  EXPECT_EQ(service_->ListProcesses(job_99).processes_size(), 0);
  EXPECT_EQ(service_->ListProcesses(Remote({})).processes_size(), 1);
  EXPECT_EQ(service_->ListSessions(job_1234).sessions_size(), 1);
  EXPECT_EQ(service_->ListSessions(job_99).sessions_size(), 0);
  EXPECT_EQ(service_->GetTree(job_99, 1).status().ToString(),
            "PERMISSION_DENIED: session 1 has processes outside the jobs this token may touch "
            "(99)");
  EXPECT_TRUE(service_->GetTree(job_1234, 1).ok());

  v1::AttachRequest by_job;
  by_job.set_job("1234");
  EXPECT_EQ(service_->Attach(job_99, by_job).status().ToString(),
            "PERMISSION_DENIED: this token may touch jobs 99 only, not job 1234");
  v1::AttachRequest by_pid;
  by_pid.add_pids(self_.pid);
  absl::StatusOr<v1::AttachResponse> refused = service_->Attach(job_99, by_pid);
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->targets(0).reason(), "not a process of the jobs this token may touch (99)");
  absl::StatusOr<v1::AttachResponse> busy = service_->Attach(job_1234, by_pid);
  ASSERT_TRUE(busy.ok()) << busy.status();
  EXPECT_EQ(busy->targets(0).reason(),
            "already in session 1 (mine); stop it first: protonctl stop --session 1");

  EXPECT_EQ(service_->StopSession(job_99, 1).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(service_->StopSession(job_1234, 1).ok());
}

constexpr char kUnknownMode[] =
    "INVALID_ARGUMENT: unknown mode 'bogus' (known: \"\" and \"pcsampling[:interval=CYCLES]\")";

TEST_F(ProtondServiceTest, AModeThatDoesNotParseIsRefusedAndNothingIsStored) {
  RegisterSelf();
  EXPECT_EQ(service_->StartSession(self_, "bad", v1::Session::TREE, "bogus").status().ToString(),
            kUnknownMode);
  EXPECT_EQ(service_->StartSession(self_, "bad", v1::Session::TREE, "pcsampling:interval=0")
                .status()
                .ToString(),
            "INVALID_ARGUMENT: pcsampling interval must be a positive integer (cycles between "
            "samples), not '0'");
  v1::AttachRequest request;
  request.add_pids(self_.pid);
  request.set_mode("bogus");
  EXPECT_EQ(service_->Attach(self_, request).status().ToString(), kUnknownMode);
  EXPECT_TRUE(service_->ListSessions(self_).sessions().empty());

  service_.reset();  // what the store holds
  auto reopened = ProtondService::Create({folder_ + "/store.db", std::chrono::hours(1)});
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_TRUE((*reopened)->ListSessions(self_).sessions().empty());
}

// Stored as the parser writes it, and listed so, also after a restart.
TEST_F(ProtondServiceTest, TheModeIsStoredCanonicalAndListed) {
  RegisterSelf();
  absl::StatusOr<v1::Session> sampled =
      service_->StartSession(self_, "sampled", v1::Session::TREE, "pc_sampling:interval=1000");
  ASSERT_TRUE(sampled.ok()) << sampled.status();
  EXPECT_EQ(sampled->mode(), "pcsampling:interval=1024");
  absl::StatusOr<v1::Session> plain = service_->StartSession(self_, "plain");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->mode(), "");
  ASSERT_TRUE(service_->StopSession(self_, sampled->id()).ok());

  service_.reset();
  auto reopened = ProtondService::Create({folder_ + "/store.db", std::chrono::hours(1)});
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  const v1::ListSessionsResponse listed = (*reopened)->ListSessions(self_);
  ASSERT_EQ(listed.sessions_size(), 2);
  EXPECT_EQ(listed.sessions(0).mode(), "pcsampling:interval=1024");
  EXPECT_EQ(listed.sessions(1).mode(), "");
}

// protonctl start --mode: the process is told the mode with the session, and answers.
TEST_F(ProtondServiceTest, StartRecordingCarriesTheSessionsMode) {
  RegisterSelf();
  service_->set_answer_timeout(std::chrono::seconds(10));
  std::optional<v1::ControlCommand> pushed;
  std::thread connection([&] {
    pushed = service_->NextCommand(process_id_, std::chrono::seconds(10));
    if (!pushed) return;
    v1::CommandResult result;
    result.set_process_id(process_id_);
    result.set_command_id(pushed->command_id());
    result.set_ok(true);
    EXPECT_TRUE(service_->Acknowledge(self_, result).ok());
  });
  v1::AttachRequest request;
  request.add_pids(self_.pid);
  request.set_mode("pcsampling");
  absl::StatusOr<v1::AttachResponse> response = service_->Attach(self_, request);
  connection.join();
  ASSERT_TRUE(response.ok()) << response.status();
  ASSERT_TRUE(pushed.has_value());
  ASSERT_TRUE(pushed->has_start_recording()) << pushed->DebugString();
  EXPECT_EQ(pushed->start_recording().session_id(), response->session().id());
  EXPECT_EQ(pushed->start_recording().mode(), "pcsampling");
  EXPECT_TRUE(response->targets(0).recording());
  EXPECT_EQ(response->session().mode(), "pcsampling");
}

// A job's process that registers later is told the mode of the session it joins.
TEST_F(ProtondServiceTest, AJoiningProcessIsToldTheSessionsMode) {
  v1::AttachRequest request;
  request.set_job("4242");
  request.set_include_new(true);
  request.set_mode("pcsampling:interval=4096");
  absl::StatusOr<v1::AttachResponse> response = service_->Attach(self_, request);
  ASSERT_TRUE(response.ok()) << response.status();
  RegisterSelf("4242");
  std::optional<v1::ControlCommand> pushed =
      service_->NextCommand(process_id_, std::chrono::milliseconds(0));
  ASSERT_TRUE(pushed.has_value());
  EXPECT_EQ(pushed->start_recording().session_id(), response->session().id());
  EXPECT_EQ(pushed->start_recording().mode(), "pcsampling:interval=4096");
}

}  // namespace
}  // namespace protond::service
