#include "daemon/always_on/period_verdict.h"

#include "gtest/gtest.h"

namespace protond::always_on {
namespace {

constexpr int64_t kWindowNs = 2'000'000'000;

// A window's verdict: `judged` of `calls` judged, `late_rank` named (-1: none) with `late_ms`.
store::WindowVerdictRow Window(uint64_t calls, uint64_t judged, int32_t late_rank, uint32_t pid,
                               double late_ms, double wait_share) {
  return {calls, judged, late_rank, pid, late_ms * 1e6, wait_share * kWindowNs, wait_share};
}

TEST(PeriodVerdictTest, TheRankNamedInMostOfTheJudgedCallsIsTheLateRank) {
  PeriodVerdict period;
  period.Add(Window(40, 30, 1, 801, 10, 0.2), kWindowNs);
  period.Add(Window(40, 30, 1, 802, 14, 0.4), kWindowNs);  // restarted: a new pid
  period.Add(Window(40, 20, -1, 0, 0, 0.0), kWindowNs);
  const store::WindowVerdictRow verdict = period.Verdict();
  EXPECT_EQ(verdict.collective_calls, 120u);
  EXPECT_EQ(verdict.judged_calls, 80u);
  EXPECT_EQ(verdict.late_rank, 1);  // 60 of 80 judged calls: 75% >= 60%
  EXPECT_EQ(verdict.late_pid, 802u);
  EXPECT_DOUBLE_EQ(verdict.late_mean_ns, 12e6);
  EXPECT_DOUBLE_EQ(verdict.others_wait_share, 0.2);
  EXPECT_DOUBLE_EQ(verdict.others_wait_ns, 0.6 * kWindowNs);
}

TEST(PeriodVerdictTest, NoRankWhenMostJudgedCallsNamedNone) {
  PeriodVerdict period;
  period.Add(Window(40, 30, 0, 800, 5, 0.1), kWindowNs);
  period.Add(Window(40, 30, -1, 0, 0, 0.0), kWindowNs);
  period.Add(Window(40, 30, -1, 0, 0, 0.0), kWindowNs);
  const store::WindowVerdictRow verdict = period.Verdict();
  EXPECT_EQ(verdict.judged_calls, 90u);
  EXPECT_EQ(verdict.late_rank, -1);  // 30 of 90
  EXPECT_EQ(verdict.late_pid, 0u);
  EXPECT_EQ(verdict.late_mean_ns, 0);
}

TEST(PeriodVerdictTest, TwoRanksNamedInTurnsNameNeitherUnlessOneHoldsTheShare) {
  PeriodVerdict split;
  split.Add(Window(40, 30, 0, 800, 5, 0.1), kWindowNs);
  split.Add(Window(40, 30, 1, 801, 5, 0.1), kWindowNs);
  EXPECT_EQ(split.Verdict().late_rank, -1);  // 50% each

  PeriodVerdict leaning;
  leaning.Add(Window(40, 10, 0, 800, 5, 0.1), kWindowNs);
  leaning.Add(Window(40, 30, 1, 801, 7, 0.1), kWindowNs);
  EXPECT_EQ(leaning.Verdict().late_rank, 1);  // 30 of 40
  EXPECT_DOUBLE_EQ(leaning.Verdict().late_mean_ns, 7e6);
}

TEST(PeriodVerdictTest, WaitShareIsWeightedByTheTimeRecordedWithCalls) {
  PeriodVerdict period;
  period.Add(Window(10, 10, -1, 0, 0, 0.3), kWindowNs);
  period.Add(Window(10, 10, -1, 0, 0, 0.0), 3 * kWindowNs);
  period.Add(Window(0, 0, -1, 0, 0, 0.0), 5 * kWindowNs);  // no calls: no share to weigh
  EXPECT_DOUBLE_EQ(period.Verdict().others_wait_share, 0.3 / 4);
}

TEST(PeriodVerdictTest, NoMembersWithCallsIsNoVerdict) {
  PeriodVerdict period;
  period.Add({}, kWindowNs);
  EXPECT_EQ(period.Verdict(), store::WindowVerdictRow{});
}

}  // namespace
}  // namespace protond::always_on
