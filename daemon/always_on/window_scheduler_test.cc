#include "daemon/always_on/window_scheduler.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::always_on {
namespace {

using std::chrono::milliseconds;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using Busy = Candidate::Busy;

// The injected clock: ms since the epoch. 60'000'000 is a multiple of every period below.
Clock::time_point At(int64_t ms) { return Clock::time_point(milliseconds(ms)); }
constexpr int64_t kT0 = 60'000'000;

Candidate Process(uint64_t id, const std::string& job = "", uint32_t uid = 1000,
                  const std::string& command = "python train.py") {
  return Candidate{id, static_cast<uint32_t>(4000 + id), uid, job, command, Busy::kFree};
}

// A window of `window_ms` every `period_ms`, of every process.
WindowPolicy Policy(int64_t window_ms = 300, int64_t period_ms = 1000) {
  WindowPolicy policy;
  policy.window = milliseconds(window_ms);
  policy.period = milliseconds(period_ms);
  return policy;
}

std::unique_ptr<WindowScheduler> Scheduler(WindowPolicy policy = Policy()) {
  auto scheduler = WindowScheduler::Create(std::move(policy));
  EXPECT_TRUE(scheduler.ok()) << scheduler.status();
  return *std::move(scheduler);
}

TEST(WindowSchedulerTest, AJobsRanksShareOneWindowAndALoneProcessHasItsOwn) {
  auto scheduler = Scheduler();
  const std::vector<Candidate> processes = {Process(3, "981"), Process(1, "981"), Process(2)};
  EXPECT_THAT(scheduler->Tick(processes, At(kT0 - 50)).open, IsEmpty());  // between windows
  const Plan plan = scheduler->Tick(processes, At(kT0 + 20));
  ASSERT_EQ(plan.open.size(), 2u);
  EXPECT_EQ(plan.open[0].job, "");
  EXPECT_THAT(plan.open[0].process_ids, ElementsAre(2));
  EXPECT_EQ(plan.open[1].job, "981");
  EXPECT_THAT(plan.open[1].process_ids, ElementsAre(1, 3));
  EXPECT_THAT(plan.open[1].pids, ElementsAre(4001, 4003));
  for (const Window& window : plan.open) {
    EXPECT_EQ(window.start, At(kT0));  // the aligned start, not the tick's time
    EXPECT_EQ(window.end, At(kT0 + 300));
    EXPECT_EQ(window.uid, 1000u);
  }
  EXPECT_EQ(scheduler->windows_opened(), 2u);
}

TEST(WindowSchedulerTest, AJobsProcessesOfTwoUsersGetAWindowEach) {
  auto scheduler = Scheduler();
  scheduler->Tick({Process(1, "7", 1000), Process(2, "7", 1001)}, At(kT0 - 10));
  const Plan plan = scheduler->Tick({Process(1, "7", 1000), Process(2, "7", 1001)}, At(kT0));
  ASSERT_EQ(plan.open.size(), 2u);
  EXPECT_EQ(plan.open[0].uid, 1000u);
  EXPECT_EQ(plan.open[1].uid, 1001u);
}

TEST(WindowSchedulerTest, OneWindowAPeriodOpenedOnlyWhileItLasts) {
  auto scheduler = Scheduler();
  const std::vector<Candidate> processes = {Process(1)};
  scheduler->Tick(processes, At(kT0 - 100));
  EXPECT_EQ(scheduler->Tick(processes, At(kT0 + 100)).open.size(), 1u);
  EXPECT_THAT(scheduler->Tick(processes, At(kT0 + 200)).open, IsEmpty());  // opened already
  EXPECT_THAT(scheduler->Tick(processes, At(kT0 + 999)).open, IsEmpty());  // between windows
  EXPECT_EQ(scheduler->Tick(processes, At(kT0 + 1000)).open.size(), 1u);   // the next period
  // A tick that comes after the window's end opens nothing: the window is missed, not late.
  EXPECT_THAT(scheduler->Tick(processes, At(kT0 + 2300)).open, IsEmpty());
  EXPECT_EQ(scheduler->Tick(processes, At(kT0 + 3299)).open.size(), 1u);
  EXPECT_EQ(scheduler->windows_opened(), 3u);
}

TEST(WindowSchedulerTest, AProcessThatRegistersMidPeriodWaitsForTheNextAlignedStart) {
  auto scheduler = Scheduler();
  scheduler->Tick({Process(1, "981")}, At(kT0 - 100));
  // Rank 2 registers 50 ms into the window: joining now would start it late and alone.
  const Plan late = scheduler->Tick({Process(1, "981"), Process(2, "981")}, At(kT0 + 50));
  ASSERT_EQ(late.open.size(), 1u);
  EXPECT_THAT(late.open[0].process_ids, ElementsAre(1));
  EXPECT_THAT(scheduler->Tick({Process(1, "981"), Process(2, "981")}, At(kT0 + 100)).open,
              IsEmpty());
  const Plan next = scheduler->Tick({Process(1, "981"), Process(2, "981")}, At(kT0 + 1000));
  ASSERT_EQ(next.open.size(), 1u);
  EXPECT_THAT(next.open[0].process_ids, ElementsAre(1, 2));
}

TEST(WindowSchedulerTest, AHandStartedSessionTakesTheWindowAndTheSkipIsCounted) {
  auto scheduler = Scheduler();
  std::vector<Candidate> processes = {Process(1, "981"), Process(2, "981"), Process(3)};
  scheduler->Tick(processes, At(kT0 - 100));
  processes[0].busy = Busy::kHandSession;
  processes[2].busy = Busy::kHandSession;
  Plan plan = scheduler->Tick(processes, At(kT0));
  ASSERT_EQ(plan.open.size(), 1u);
  EXPECT_THAT(plan.open[0].process_ids, ElementsAre(2));
  EXPECT_THAT(plan.skipped, ElementsAre(1, 3));
  EXPECT_THAT(scheduler->Tick(processes, At(kT0 + 100)).skipped, IsEmpty());  // once a period
  plan = scheduler->Tick(processes, At(kT0 + 1000));
  EXPECT_THAT(plan.skipped, ElementsAre(1, 3));
  EXPECT_EQ(scheduler->windows_skipped(), 4u);
  EXPECT_EQ(scheduler->skipped_by_process().at(1), 2u);
  EXPECT_EQ(scheduler->skipped_by_process().count(2), 0u);
  // The hand-started session ends: windows come back at the next start.
  processes[0].busy = Busy::kFree;
  processes[2].busy = Busy::kFree;
  plan = scheduler->Tick(processes, At(kT0 + 2000));
  EXPECT_EQ(plan.open.size(), 2u);
  EXPECT_THAT(plan.skipped, IsEmpty());
  // A process that is gone is forgotten, its count with it.
  scheduler->Tick({processes[1]}, At(kT0 + 2100));
  EXPECT_TRUE(scheduler->skipped_by_process().empty());
}

TEST(WindowSchedulerTest, AProcessWhoseLastWindowRunsOnIsNeitherOpenedNorSkipped) {
  auto scheduler = Scheduler();
  std::vector<Candidate> processes = {Process(1)};
  scheduler->Tick(processes, At(kT0 - 100));
  processes[0].busy = Busy::kWindowSession;
  const Plan plan = scheduler->Tick(processes, At(kT0));
  EXPECT_THAT(plan.open, IsEmpty());
  EXPECT_THAT(plan.skipped, IsEmpty());
  processes[0].busy = Busy::kFree;  // it ended within this window: it may still have it
  EXPECT_EQ(scheduler->Tick(processes, At(kT0 + 50)).open.size(), 1u);
}

TEST(WindowSchedulerTest, FiltersSelectByUserJobAndCommand) {
  const std::vector<Candidate> processes = {
      Process(1, "981", 1000, "python train.py"), Process(2, "982", 1001, "python train.py"),
      Process(3, "", 1000, "/usr/bin/bash"), Process(4, "982", 1000, "python eval.py")};
  const auto selected = [&](WindowPolicy policy) {
    auto scheduler = Scheduler(std::move(policy));
    scheduler->Tick(processes, At(kT0 - 100));
    std::vector<uint64_t> ids;
    for (const Window& window : scheduler->Tick(processes, At(kT0)).open) {
      ids.insert(ids.end(), window.process_ids.begin(), window.process_ids.end());
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  WindowPolicy policy = Policy();
  EXPECT_THAT(selected(policy), ElementsAre(1, 2, 3, 4));
  policy.uids = {1000};
  EXPECT_THAT(selected(policy), ElementsAre(1, 3, 4));
  policy.uids = {};
  policy.jobs = {"982"};
  EXPECT_THAT(selected(policy), ElementsAre(2, 4));
  policy.jobs = {};
  policy.command_regex = "^python .*train";
  EXPECT_THAT(selected(policy), ElementsAre(1, 2));
  policy = Policy();
  policy.uids = {1000};
  policy.jobs = {"982"};
  policy.command_regex = "python";
  EXPECT_THAT(selected(policy), ElementsAre(4));
}

TEST(WindowSchedulerTest, RefusesABadPolicyWithItsValues) {
  const auto refused = [](WindowPolicy policy) {
    auto scheduler = WindowScheduler::Create(std::move(policy));
    EXPECT_EQ(scheduler.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(scheduler.status().message());
  };
  EXPECT_EQ(refused(Policy(1000, 1000)),
            "the window (1000 ms) must be shorter than the period (1000 ms): a process's windows "
            "may not overlap");
  EXPECT_EQ(refused(Policy(0, 1000)),
            "the window (0 ms) and the period (1000 ms) must be more than zero");
  WindowPolicy bad_regex = Policy();
  bad_regex.command_regex = "train(";
  EXPECT_EQ(refused(bad_regex), "bad command regex 'train(': missing ): train(");
}

}  // namespace
}  // namespace protond::always_on
