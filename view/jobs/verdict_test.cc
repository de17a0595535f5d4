#include "view/jobs/verdict.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/jobs/testing/synthetic_job.h"
#include "view/jobs/validate.h"

namespace protond::view {
namespace {

using ::testing::HasSubstr;
using testing::kMs;

JobVerdict Judge(const std::vector<CollectiveRecordUntrusted>& records,
                 const VerdictOptions& options = {}, const MatchOptions& match = {}) {
  ValidatedCollectives valid = ValidateCollectives(records, "");
  EXPECT_EQ(valid.stats.TotalRejected(), 0u);
  return JudgeJob(MatchCollectives(valid.records, match), options);
}

// The job: two ranks, rank 1 sleeps 10 ms before each of 118 steps.
testing::SyntheticJob DelayedRank1() {
  return {.nranks = 2, .calls = 118, .jitter_ns = kMs / 5, .delay_ns = [](int rank, int) {
            return rank == 1 ? 10 * kMs : 0;
          }};
}

TEST(VerdictTest, AnInjectedDelayNamesTheDelayedRank) {
  const JobVerdict verdict = Judge(testing::Generate(DelayedRank1()));
  ASSERT_EQ(verdict.communicators.size(), 1u);
  for (const Verdict& v : {verdict.job, verdict.communicators[0].verdict}) {
    EXPECT_TRUE(v.late) << v.reason;
    EXPECT_EQ(v.rank, 1);
    EXPECT_EQ(v.process.pid, 1001);
    EXPECT_EQ(v.process.host, "node01");
    EXPECT_EQ(v.last_calls, 118u);
    EXPECT_EQ(v.candidate_calls, 118u);
    EXPECT_EQ(v.judged_calls, 118u);
    EXPECT_EQ(v.op_name, "all_reduce");
    EXPECT_NEAR(v.mean_lateness_ns, 10 * kMs, 2 * kMs);  // within 20%
    EXPECT_NEAR(v.median_lateness_ns, 10 * kMs, 2 * kMs);
    EXPECT_EQ(v.median_transfer_ns, kMs / 2);
    EXPECT_EQ(v.other_ranks, std::vector<int>{0});
    EXPECT_NEAR(v.others_wait_ns, 118 * 10 * kMs, 118 * 2 * kMs);
    EXPECT_FALSE(v.others_wait_share.has_value());
  }
}

TEST(VerdictTest, TheOthersWaitIsAShareOfTheirGpuTime) {
  const JobVerdict verdict =
      Judge(testing::Generate(DelayedRank1()), {.gpu_time_ns = {{{"node01", 1000}, 2'000 * kMs}}});
  const Verdict& v = verdict.job;
  ASSERT_TRUE(v.others_wait_share.has_value());
  EXPECT_DOUBLE_EQ(*v.others_wait_share, static_cast<double>(v.others_wait_ns) / (2'000 * kMs));
  // Without rank 0's GPU time there is no share, whoever else's is known.
  const JobVerdict partial =
      Judge(testing::Generate(DelayedRank1()), {.gpu_time_ns = {{{"node01", 1001}, 2'000 * kMs}}});
  EXPECT_FALSE(partial.job.others_wait_share.has_value());
}

TEST(VerdictTest, NoDelayWithJitterNamesNoRank) {
  testing::SyntheticJob job = DelayedRank1();
  job.delay_ns = nullptr;
  job.jitter_ns = 3 * kMs;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    job.seed = seed;
    const JobVerdict verdict = Judge(testing::Generate(job));
    EXPECT_FALSE(verdict.job.late) << "seed " << seed;
    EXPECT_FALSE(verdict.communicators[0].verdict.late) << "seed " << seed;
    EXPECT_THAT(verdict.job.reason, HasSubstr("of 118 calls"));
    EXPECT_THAT(verdict.job.reason, HasSubstr("sigma above the 50% of chance"));
  }
}

// Four ranks; rank 2 is 5 ms late at 7 of every 10 calls, the rest is jitter.
testing::SyntheticJob FourRanks(int late_in_ten) {
  return {
      .nranks = 4, .calls = 100, .jitter_ns = kMs, .delay_ns = [late_in_ten](int rank, int call) {
        return rank == 2 && call % 10 < late_in_ten ? 5 * kMs : 0;
      }};
}

TEST(VerdictTest, FourRanksOneLateAtSeventyPercent) {
  const JobVerdict verdict = Judge(testing::Generate(FourRanks(7)));
  const Verdict& v = verdict.job;
  EXPECT_TRUE(v.late) << v.reason;
  EXPECT_EQ(v.rank, 2);
  EXPECT_GE(v.last_calls, 70u);
  EXPECT_LE(v.last_calls, 80u);  // plus its share of the 30 left to chance
  EXPECT_EQ(v.candidate_calls, 100u);
  // "Last at K calls, on average X after the first": X over those K (about 4.8 ms), not over all
  // 100, where the 30 calls it was early in would pull it to about 3.8 ms.
  EXPECT_GT(v.mean_lateness_ns, 4.4 * kMs);
  EXPECT_LT(v.mean_lateness_ns, 5.5 * kMs);
  EXPECT_EQ(v.other_ranks, (std::vector<int>{0, 1, 3}));
}

// Late at 3 calls in 10, and last at about a quarter of the other 7 by chance: about 48%.
TEST(VerdictTest, FourRanksOneLateAtThirtyPercentIsNotEnough) {
  const JobVerdict verdict = Judge(testing::Generate(FourRanks(3)));
  EXPECT_FALSE(verdict.job.late);
  EXPECT_EQ(verdict.job.rank, 2);  // still the candidate
  EXPECT_THAT(verdict.job.reason, HasSubstr("less than the 60% needed"));
}

TEST(VerdictTest, FewCallsMustBeatChanceByThreeSigma) {
  testing::SyntheticJob job = DelayedRank1();
  job.jitter_ns = 0;
  // 8 calls, last at 7 of them (88%): chance (50%) + 3 sigma over 8 calls is 103%.
  job.calls = 8;
  job.delay_ns = [](int rank, int call) { return rank == 1 && call != 0 ? 10 * kMs : 0; };
  const JobVerdict few = Judge(testing::Generate(job));
  EXPECT_FALSE(few.job.late);
  EXPECT_EQ(few.job.last_calls, 7u);
  EXPECT_THAT(few.job.reason, HasSubstr("rank 1 is last at 7 of 8 calls (88%), less than the "
                                        "103% needed"));
  // 30 calls, last at 25 (83%): 50% + 3 sigma is 77%.
  job.calls = 30;
  job.delay_ns = [](int rank, int call) { return rank == 1 && call % 6 != 0 ? 10 * kMs : 0; };
  const JobVerdict enough = Judge(testing::Generate(job));
  EXPECT_EQ(enough.job.last_calls, 25u);
  EXPECT_TRUE(enough.job.late) << enough.job.reason;
}

TEST(VerdictTest, LatenessBelowOneMillisecondIsNotLate) {
  testing::SyntheticJob job = DelayedRank1();
  job.jitter_ns = 0;
  job.delay_ns = [](int rank, int) { return rank == 1 ? 900'000 : 0; };
  const JobVerdict under = Judge(testing::Generate(job));
  EXPECT_FALSE(under.job.late);
  EXPECT_EQ(under.job.last_calls, 118u);
  EXPECT_EQ(under.job.reason,
            "rank 1's median lateness 0.900 ms is below the 1.00 ms needed (at least 1.00 ms, and "
            "5% of the median transfer time 0.500 ms)");
  job.delay_ns = [](int rank, int) { return rank == 1 ? 1'100'000 : 0; };
  EXPECT_TRUE(Judge(testing::Generate(job)).job.late);
}

// Across hosts, a lateness within the clock offsets' error may be the clocks' and names no rank.
TEST(VerdictTest, LatenessWithinTheClockErrorIsNotLate) {
  testing::SyntheticJob job = DelayedRank1();
  job.jitter_ns = 0;
  job.delay_ns = [](int rank, int) { return rank == 1 ? 3 * kMs : 0; };
  const JobVerdict under = Judge(testing::Generate(job), {.clock_error_ns = 4 * kMs});
  EXPECT_FALSE(under.job.late);
  EXPECT_EQ(under.job.reason,
            "rank 1's median lateness 3.00 ms is below the 4.00 ms needed (at least 1.00 ms, and "
            "5% of the median transfer time 0.500 ms, and the clock offsets' error 4.00 ms)");
  EXPECT_TRUE(Judge(testing::Generate(job), {.clock_error_ns = 2 * kMs}).job.late);
}

TEST(VerdictTest, LatenessSmallBesideTheTransferIsNotLate) {
  testing::SyntheticJob job = DelayedRank1();
  job.jitter_ns = 0;
  job.transfer_ns = 100 * kMs;
  job.step_ns = 200 * kMs;
  job.delay_ns = [](int rank, int) { return rank == 1 ? 4 * kMs : 0; };  // 4% of the transfer
  const JobVerdict under = Judge(testing::Generate(job));
  EXPECT_FALSE(under.job.late);
  EXPECT_THAT(under.job.reason, HasSubstr("below the 5.00 ms needed"));
  job.delay_ns = [](int rank, int) { return rank == 1 ? 6 * kMs : 0; };  // 6%
  EXPECT_TRUE(Judge(testing::Generate(job)).job.late);
}

TEST(VerdictTest, TheRuleFollowsItsOptions) {
  testing::SyntheticJob job = FourRanks(7);
  const VerdictOptions strict{.min_last_share = 0.9};
  EXPECT_FALSE(Judge(testing::Generate(job), strict).job.late);
  const VerdictOptions high_floor{.min_lateness_ns = 10 * kMs};
  EXPECT_FALSE(Judge(testing::Generate(job), high_floor).job.late);
}

TEST(VerdictTest, MissingRanksLeaveCallsOutOfTheVerdict) {
  std::vector<CollectiveRecordUntrusted> records = testing::Generate(DelayedRank1());
  // Rank 0 misses every other call: those are incomplete, the rest still name rank 1.
  std::erase_if(records, [](const auto& r) { return r.rank == 0 && r.seq % 2 == 1; });
  const JobVerdict verdict = Judge(records);
  EXPECT_TRUE(verdict.job.late) << verdict.job.reason;
  EXPECT_EQ(verdict.job.judged_calls, 59u);
  EXPECT_EQ(verdict.job.last_calls, 59u);
  EXPECT_EQ(verdict.job.candidate_calls, 59u);
}

TEST(VerdictTest, OnlyIncompleteCallsGiveNoVerdictAndSaySo) {
  std::vector<CollectiveRecordUntrusted> records = testing::Generate(DelayedRank1());
  std::erase_if(records, [](const auto& r) { return r.rank == 0; });
  const JobVerdict verdict = Judge(records);
  EXPECT_FALSE(verdict.job.late);
  EXPECT_EQ(verdict.job.judged_calls, 0u);
  EXPECT_EQ(verdict.job.rank, -1);
  EXPECT_EQ(verdict.job.reason, "none of the 118 calls was reported by every rank");
}

TEST(VerdictTest, ARankThatExitsMidJobIsJudgedOnTheCallsBefore) {
  std::vector<CollectiveRecordUntrusted> records = testing::Generate(DelayedRank1());
  std::erase_if(records, [](const auto& r) { return r.rank == 1 && r.seq >= 40; });
  const JobVerdict verdict = Judge(records);
  EXPECT_TRUE(verdict.job.late) << verdict.job.reason;
  EXPECT_EQ(verdict.job.rank, 1);
  EXPECT_EQ(verdict.job.last_calls, 40u);
  EXPECT_EQ(verdict.job.judged_calls, 40u);
}

TEST(VerdictTest, SequenceGapsDoNotChangeTheVerdict) {
  std::vector<CollectiveRecordUntrusted> records = testing::Generate(DelayedRank1());
  std::erase_if(records, [](const auto& r) { return r.seq >= 30 && r.seq < 60; });
  const JobVerdict verdict = Judge(records);
  EXPECT_TRUE(verdict.job.late);
  EXPECT_EQ(verdict.job.last_calls, 88u);
}

TEST(VerdictTest, TwoCommunicatorsWithDifferentLateRanks) {
  // Data parallel over pids 1000/1001 (rank 1 late), tensor parallel over 2000/2001 (rank 0 late).
  testing::SyntheticJob dp = DelayedRank1();
  testing::SyntheticJob tp{.comm_id = 0x77,
                           .nranks = 2,
                           .calls = 60,
                           .first_pid = 2000,
                           .jitter_ns = kMs / 5,
                           .delay_ns = [](int rank, int) { return rank == 0 ? 3 * kMs : 0; },
                           .op = "all_gather"};
  std::vector<CollectiveRecordUntrusted> records = testing::Generate(tp);
  for (auto& r : testing::Generate(dp)) records.push_back(r);
  const JobVerdict verdict = Judge(records);
  ASSERT_EQ(verdict.communicators.size(), 2u);
  const Verdict& first = verdict.communicators[0].verdict;
  EXPECT_EQ(verdict.communicators[0].comm_id, 0x2au);
  EXPECT_TRUE(first.late);
  EXPECT_EQ(first.rank, 1);
  EXPECT_EQ(first.process.pid, 1001);
  const Verdict& second = verdict.communicators[1].verdict;
  EXPECT_EQ(verdict.communicators[1].comm_id, 0x77u);
  EXPECT_TRUE(second.late);
  EXPECT_EQ(second.rank, 0);
  EXPECT_EQ(second.process.pid, 2000);
  EXPECT_EQ(second.op_name, "all_gather");
  EXPECT_NEAR(second.mean_lateness_ns, 3 * kMs, 0.6 * kMs);
  // The job: pid 1001 is last most often (118 against 60), over its own calls.
  EXPECT_TRUE(verdict.job.late);
  EXPECT_EQ(verdict.job.process.pid, 1001);
  EXPECT_EQ(verdict.job.last_calls, 118u);
  EXPECT_EQ(verdict.job.candidate_calls, 118u);
  EXPECT_EQ(verdict.job.judged_calls, 178u);
  EXPECT_EQ(verdict.job.other_ranks, std::vector<int>{0});
}

TEST(VerdictTest, InTheJobAProcessIsNamedByItsRankInItsLargestCommunicator) {
  // World of 4 (pids 1000..1003); a communicator of 2 over pids 1002 and 1003, where pid 1003 is
  // rank 1. pid 1003 is late in both.
  testing::SyntheticJob world{
      .nranks = 4, .calls = 50, .jitter_ns = kMs / 5, .delay_ns = [](int rank, int) {
        return rank == 3 ? 5 * kMs : 0;
      }};
  testing::SyntheticJob pair{.comm_id = 0x5,
                             .nranks = 2,
                             .calls = 50,
                             .first_pid = 1002,
                             .jitter_ns = kMs / 5,
                             .delay_ns = [](int rank, int) { return rank == 1 ? 5 * kMs : 0; }};
  std::vector<CollectiveRecordUntrusted> records = testing::Generate(world);
  for (auto& r : testing::Generate(pair)) records.push_back(r);
  const JobVerdict verdict = Judge(records);
  EXPECT_TRUE(verdict.job.late);
  EXPECT_EQ(verdict.job.process.pid, 1003);
  EXPECT_EQ(verdict.job.rank, 3);
  EXPECT_EQ(verdict.job.last_calls, 100u);
  EXPECT_EQ(verdict.communicators[0].verdict.rank, 1);  // comm 0x5 comes first
}

TEST(VerdictTest, TwoHostsWithAndWithoutAClockOffset) {
  testing::SyntheticJob job = DelayedRank1();
  job.host_of = {"node01", "node02"};
  job.clock_skew_ns = {{"node02", -40 * kMs}};  // node02's clock is 40 ms behind
  const JobVerdict refused = Judge(testing::Generate(job));
  EXPECT_FALSE(refused.job.late);
  EXPECT_EQ(refused.job.reason,
            "no call can be compared across hosts: the call spans hosts node01, node02; no clock "
            "offset is known for node01, node02");
  const JobVerdict aligned =
      Judge(testing::Generate(job), {}, {.clock_offset_ns = {{"node01", 0}, {"node02", 40 * kMs}}});
  EXPECT_TRUE(aligned.job.late) << aligned.job.reason;
  EXPECT_EQ(aligned.job.rank, 1);
  EXPECT_EQ(aligned.job.process.host, "node02");
  EXPECT_NEAR(aligned.job.mean_lateness_ns, 10 * kMs, 2 * kMs);
}

// The fewest calls at which a rank last at every one is named: 9 of 2 ranks, 3 of 4, and the
// verdict agrees on both sides of it.
TEST(VerdictTest, TooFewCallsCanNameNoRankHoweverLateItIs) {
  const VerdictOptions options;
  EXPECT_EQ(MinCallsToNameARank(2, options), 9u);
  EXPECT_EQ(MinCallsToNameARank(4, options), 3u);
  EXPECT_EQ(MinCallsToNameARank(1, options), 0u);
  for (const int calls : {8, 9}) {
    testing::SyntheticJob job = DelayedRank1();
    job.calls = calls;
    const JobVerdict verdict = Judge(testing::Generate(job));
    EXPECT_EQ(verdict.job.late, calls >= 9) << calls << ": " << verdict.job.reason;
  }
}

}  // namespace
}  // namespace protond::view
