#include "view/history/window_verdict.h"

#include <vector>

#include "gtest/gtest.h"
#include "view/jobs/testing/synthetic_job.h"

namespace protond::view {
namespace {

using testing::kMs;

constexpr double kWindowNs = 2'000 * kMs;

// The synthetic job's calls as GetCollectives answers them: one event per rank and call.
v1::Collectives CallsOf(const std::vector<CollectiveRecordUntrusted>& records) {
  v1::Collectives calls;
  for (const CollectiveRecordUntrusted& record : records) {
    v1::CollectiveEvent* event = calls.add_events();
    event->set_pid(static_cast<uint32_t>(record.pid));
    event->set_rank(static_cast<uint32_t>(record.rank));
    event->set_nranks(static_cast<uint32_t>(record.nranks));
    event->set_comm_hash(record.comm_id);
    event->set_seq(record.seq);
    event->set_count(1024);
    event->set_op("AllReduce");
    event->set_datatype("ncclFloat32");
    event->set_algorithm(record.algorithm);
    event->set_protocol(record.protocol);
    event->set_start_ns(record.start_ns);
    event->set_end_ns(record.end_ns);
  }
  return calls;
}

// 40 all-reduces, one every 50 ms, as a 2 s window holds them.
testing::SyntheticJob WindowJob() {
  testing::SyntheticJob job;
  job.calls = 40;
  return job;
}

TEST(WindowVerdictTest, ALateRankIsNamedWithItsLatenessAndTheOthersWait) {
  testing::SyntheticJob job = WindowJob();
  job.delay_ns = [](int rank, int) { return rank == 1 ? 10 * kMs : 0; };
  const std::optional<v1::WindowVerdict> verdict =
      JudgeWindow(CallsOf(testing::Generate(job)), kWindowNs);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->collective_calls(), 80u);
  EXPECT_EQ(verdict->judged_calls(), 40u);
  EXPECT_EQ(verdict->late_rank(), 1);
  EXPECT_EQ(verdict->late_pid(), 1001u);
  EXPECT_DOUBLE_EQ(verdict->late_mean_ns(), 10 * kMs);
  // Rank 0 waited 10 ms at each of 40 calls: 400 ms of its 2 s.
  EXPECT_DOUBLE_EQ(verdict->others_wait_ns(), 400 * kMs);
  EXPECT_DOUBLE_EQ(verdict->others_wait_share(), 0.2);
}

TEST(WindowVerdictTest, NoRankIsLateWithoutADelay) {
  testing::SyntheticJob job = WindowJob();
  job.nranks = 4;
  job.jitter_ns = 3 * kMs;
  const std::optional<v1::WindowVerdict> verdict =
      JudgeWindow(CallsOf(testing::Generate(job)), kWindowNs);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->judged_calls(), 40u);
  EXPECT_EQ(verdict->late_rank(), -1);
  EXPECT_EQ(verdict->late_pid(), 0u);
  EXPECT_EQ(verdict->late_mean_ns(), 0);
  // The three ranks other than the one last most often waited for it, a little, over 3 x 2 s.
  EXPECT_GT(verdict->others_wait_ns(), 0);
  EXPECT_DOUBLE_EQ(verdict->others_wait_share(), verdict->others_wait_ns() / (3 * kWindowNs));
}

TEST(WindowVerdictTest, OneRanksCallsAloneAreNotJudged) {
  // A window of one process of a job (the others on another node, or in windows of their own).
  testing::SyntheticJob job = WindowJob();
  std::vector<CollectiveRecordUntrusted> records = testing::Generate(job);
  std::erase_if(records, [](const CollectiveRecordUntrusted& r) { return r.rank != 0; });
  const std::optional<v1::WindowVerdict> verdict = JudgeWindow(CallsOf(records), kWindowNs);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->collective_calls(), 40u);
  EXPECT_EQ(verdict->judged_calls(), 0u);
  EXPECT_EQ(verdict->late_rank(), -1);
  EXPECT_EQ(verdict->others_wait_ns(), 0);
  EXPECT_EQ(verdict->others_wait_share(), 0);
}

TEST(WindowVerdictTest, HostileCallsAreLeftOutAndTheRestJudged) {
  testing::SyntheticJob job = WindowJob();
  job.delay_ns = [](int rank, int) { return rank == 1 ? 10 * kMs : 0; };
  v1::Collectives calls = CallsOf(testing::Generate(job));
  v1::CollectiveEvent* hostile = calls.add_events();
  *hostile = calls.events(0);
  hostile->set_rank(7);  // not in 0..1
  hostile->set_seq(1000);
  const std::optional<v1::WindowVerdict> verdict = JudgeWindow(calls, kWindowNs);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->collective_calls(), 81u);
  EXPECT_EQ(verdict->judged_calls(), 40u);
  EXPECT_EQ(verdict->late_rank(), 1);
}

TEST(WindowVerdictTest, NoCallsNoVerdict) {
  EXPECT_FALSE(JudgeWindow(v1::Collectives(), kWindowNs).has_value());
}

TEST(WindowVerdictTest, NoLengthNoShare) {
  testing::SyntheticJob job = WindowJob();
  job.delay_ns = [](int rank, int) { return rank == 1 ? 10 * kMs : 0; };
  const std::optional<v1::WindowVerdict> verdict = JudgeWindow(CallsOf(testing::Generate(job)), 0);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_DOUBLE_EQ(verdict->others_wait_ns(), 400 * kMs);
  EXPECT_EQ(verdict->others_wait_share(), 0);
}

TEST(WindowVerdictTest, LateColumnNamesTheRankAndItsMeanLateness) {
  v1::WindowSummary summary;
  EXPECT_EQ(LateRankText(summary), std::nullopt);  // no collective calls
  summary.mutable_verdict()->set_late_rank(-1);
  EXPECT_EQ(LateRankText(summary), std::nullopt);
  summary.mutable_verdict()->set_late_rank(1);
  summary.mutable_verdict()->set_late_mean_ns(10.2 * kMs);
  EXPECT_EQ(LateRankText(summary), "rank 1 +10.2 ms");
  summary.mutable_verdict()->set_late_rank(0);
  summary.mutable_verdict()->set_late_mean_ns(412'000);
  EXPECT_EQ(LateRankText(summary), "rank 0 +0.412 ms");
}

}  // namespace
}  // namespace protond::view
