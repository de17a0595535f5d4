#include "view/history/window_selection.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::view {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr int64_t kNov27 = 1'795'773'600 * kNsPerSecond;  // 2026-11-27 10:00:00 UTC

v1::Session SessionWithProcessesOfJobs(
    const std::vector<std::pair<std::string, std::string>>& slurm_job_and_pod) {
  v1::Session session;
  for (const auto& [slurm_job_id, pod] : slurm_job_and_pod) {
    v1::Job* job = session.add_processes()->mutable_job();
    job->set_slurm_job_id(slurm_job_id);
    job->set_pod(pod);
  }
  return session;
}

TEST(IsSessionOfJobTest, ASessionStartedForTheJobIsTheJobs) {
  v1::Session session;
  session.set_job("77");
  EXPECT_TRUE(IsSessionOfJob(session, "77"));
  EXPECT_FALSE(IsSessionOfJob(session, "78"));
}

// `SLURM_JOB_ID=77 protonctl run -- torchrun ...`: a session with no job of its own, whose
// processes carry the job.
TEST(IsSessionOfJobTest, ASessionWhoseProcessesCarryTheJobIsTheJobs) {
  EXPECT_TRUE(IsSessionOfJob(SessionWithProcessesOfJobs({{"77", ""}, {"77", ""}}), "77"));
  EXPECT_TRUE(IsSessionOfJob(SessionWithProcessesOfJobs({{"", ""}, {"77", ""}}), "77"));
  EXPECT_FALSE(IsSessionOfJob(SessionWithProcessesOfJobs({{"76", ""}, {"", ""}}), "77"));
  // A pod names the job where there is no Slurm job id, as for `start --job`.
  EXPECT_TRUE(IsSessionOfJob(SessionWithProcessesOfJobs({{"", "trainer-0"}}), "trainer-0"));
  EXPECT_FALSE(IsSessionOfJob(SessionWithProcessesOfJobs({{"77", "trainer-0"}}), "trainer-0"));
}

TEST(IsSessionOfJobTest, NoJobIsNobodysJob) {
  EXPECT_FALSE(IsSessionOfJob(SessionWithProcessesOfJobs({{"", ""}}), ""));
  EXPECT_FALSE(IsSessionOfJob(v1::Session(), ""));
}

// A window of pid `pid` (or of `job`) starting `start_s` after 10:00.
v1::Session Window(uint64_t id, int64_t start_s, uint32_t pid, const std::string& command,
                   const std::string& job = "") {
  v1::Session session;
  session.set_id(id);
  session.set_always_on_window(true);
  session.set_start_time_unix_ns(kNov27 + start_s * kNsPerSecond);
  session.set_job(job);
  v1::SessionProcess* process = session.add_processes();
  process->set_pid(pid);
  process->set_command(command);
  return session;
}

std::vector<uint64_t> Selected(const std::vector<v1::Session>& sessions,
                               const v1::ListHistoryRequest& request) {
  absl::StatusOr<WindowSelection> selection = WindowSelection::Of(request);
  EXPECT_TRUE(selection.ok()) << selection.status();
  std::vector<const v1::Session*> windows;
  for (const v1::Session& session : sessions) {
    if (selection.ok() && selection->Selects(session)) windows.push_back(&session);
  }
  SortOldestFirst(windows);
  std::vector<uint64_t> ids;
  for (const v1::Session* window : windows) ids.push_back(window->id());
  return ids;
}

v1::ListHistoryRequest Request(uint32_t pid, const std::string& job, const std::string& command) {
  v1::ListHistoryRequest request;
  request.set_pid(pid);
  request.set_job(job);
  request.set_command(command);
  return request;
}

TEST(WindowSelectionTest, OnlyWindowsOldestFirstStartThenId) {
  v1::Session by_hand = Window(1, 0, 10, "w");
  by_hand.set_always_on_window(false);
  const std::vector<v1::Session> sessions = {by_hand, Window(4, 120, 10, "w"),
                                             Window(3, 60, 10, "w"), Window(2, 60, 10, "w")};
  EXPECT_THAT(Selected(sessions, {}), ElementsAre(2, 3, 4));
}

TEST(WindowSelectionTest, PidJobAndCommandSelect) {
  const std::vector<v1::Session> sessions = {
      Window(1, 0, 10, "./eval"), Window(2, 10, 11, "python train.py"),
      Window(3, 20, 10, "./eval --again"), Window(5, 30, 21, "torchrun train.py --rank 1", "77")};
  EXPECT_THAT(Selected(sessions, Request(10, "", "")), ElementsAre(1, 3));
  EXPECT_THAT(Selected(sessions, Request(99, "", "")), ElementsAre());
  EXPECT_THAT(Selected(sessions, Request(0, "77", "")), ElementsAre(5));
  EXPECT_THAT(Selected(sessions, Request(0, "78", "")), ElementsAre());
  EXPECT_THAT(Selected(sessions, Request(0, "", "train")), ElementsAre(2, 5));
  EXPECT_THAT(Selected(sessions, Request(0, "", "^python3")), ElementsAre());
  EXPECT_THAT(Selected(sessions, Request(10, "", "again")), ElementsAre(3));
}

TEST(WindowSelectionTest, ARangeSelectsByStartSinceIncludedUntilNot) {
  const std::vector<v1::Session> sessions = {Window(1, 0, 10, "w"), Window(2, 60, 10, "w"),
                                             Window(3, 120, 10, "w")};
  v1::ListHistoryRequest request;
  request.set_since_unix_ns(kNov27 + 60 * kNsPerSecond);
  EXPECT_THAT(Selected(sessions, request), ElementsAre(2, 3));
  request.set_until_unix_ns(kNov27 + 120 * kNsPerSecond);
  EXPECT_THAT(Selected(sessions, request), ElementsAre(2));
  request.clear_since_unix_ns();
  EXPECT_THAT(Selected(sessions, request), ElementsAre(1, 2));
}

TEST(WindowSelectionTest, BadRequestsAreRefusedNamingWhatWasWrong) {
  absl::StatusOr<WindowSelection> both = WindowSelection::Of(Request(7, "77", ""));
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().message(), "pid 7 and job '77' cannot be used together");
  absl::StatusOr<WindowSelection> regex = WindowSelection::Of(Request(0, "", "(train"));
  ASSERT_FALSE(regex.ok());
  EXPECT_EQ(regex.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(regex.status().message(), HasSubstr("bad command regex '(train': "));
}

}  // namespace
}  // namespace protond::view
