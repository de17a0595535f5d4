// ProtondService: sessions, attach, authorization and modes (testing/service_test_fixture.h).
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/record/record_format.h"
#include "daemon/service/testing/service_test_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/tree/profile_view.h"

namespace protond::service {
namespace {

using testing::ProtondServiceTest;
using ::testing::StartsWith;

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
  ring::LaneWriter lane = LaneOfSession(session->id());
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

// A stop takes in what the process wrote before it and stores the session stopped, in one
// commit (finalize() waits for it): a restart finds it stopped, with those records.
TEST_F(ProtondServiceTest, AStopTakesInWhatWasWrittenAndStoresTheSessionStoppedInOneCommit) {
  RegisterSelf();
  absl::StatusOr<v1::Session> session = service_->StartSession(self_, "stopping");
  ASSERT_TRUE(session.ok()) << session.status();
  ring::LaneWriter lane = LaneOfSession(session->id());
  const auto state = record::MakeTimed(record::Kind::kStateExit, 0, 1);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(lane.TryWrite(&state, sizeof(state)));
  const uint64_t commits_before = service_->MetricsSnapshot().commit_duration.count();

  absl::StatusOr<v1::Session> stopped = service_->StopSession(self_, session->id());
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(service_->MetricsSnapshot().commit_duration.count(), commits_before + 1);
  EXPECT_EQ(stopped->state(), v1::Session::STOPPED);

  service_.reset();  // what the store holds
  auto reopened = ProtondService::Create(Options());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  const v1::ListSessionsResponse listed = (*reopened)->ListSessions(self_);
  ASSERT_EQ(listed.sessions_size(), 1);
  EXPECT_EQ(listed.sessions(0).state(), v1::Session::STOPPED);
  EXPECT_NE(listed.sessions(0).end_time_unix_ns(), 0);
  EXPECT_EQ(listed.sessions(0).records(), 3);  // the three after the session began
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
  auto reopened = ProtondService::Create(Options());
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
  auto reopened = ProtondService::Create(Options());
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
