#include "view/jobs/verdict_text.h"

#include "gtest/gtest.h"

namespace protond::view {
namespace {

constexpr int64_t kMs = 1'000'000;

// The numbers of the issue's DDP job.
Verdict IssueVerdict() {
  Verdict v;
  v.late = true;
  v.judged_calls = 118;
  v.rank = 1;
  v.process = {"node02", 1284};
  v.last_calls = 117;
  v.candidate_calls = 118;
  v.op_name = "all_reduce";
  v.mean_lateness_ns = 10.2 * kMs;
  v.other_ranks = {0};
  v.others_wait_ns = 551 * kMs;
  v.others_wait_share = 0.76;
  return v;
}

TEST(VerdictTextTest, TheIssuesSentence) {
  EXPECT_EQ(RenderVerdict(IssueVerdict()),
            "rank 1 (pid 1284, node02) arrives last at 117 of 118 all_reduce calls, on average "
            "10.2 ms after the first; rank 0 waited 551 ms in all (76% of its GPU time)");
}

TEST(VerdictTextTest, SeveralOthersAndNoGpuTime) {
  Verdict v = IssueVerdict();
  v.other_ranks = {0, 2, 3};
  v.others_wait_ns = 12'345 * kMs;
  EXPECT_EQ(RenderVerdict(v),
            "rank 1 (pid 1284, node02) arrives last at 117 of 118 all_reduce calls, on average "
            "10.2 ms after the first; ranks 0, 2 and 3 waited 12.3 s in all (76% of their GPU "
            "time)");
  v.other_ranks = {0, 2};
  v.others_wait_share.reset();
  v.mean_lateness_ns = 0.25 * kMs;
  EXPECT_EQ(RenderVerdict(v),
            "rank 1 (pid 1284, node02) arrives last at 117 of 118 all_reduce calls, on average "
            "0.250 ms after the first; ranks 0 and 2 waited 12.3 s in all");
}

TEST(VerdictTextTest, AHostileHostIsShownNotObeyed) {
  Verdict v = IssueVerdict();
  v.process.host = "node\x1b]0;owned\x07";
  EXPECT_EQ(RenderVerdict(v).substr(0, 40), "rank 1 (pid 1284, node\\x1b]0;owned\\x07) ");
}

TEST(VerdictTextTest, NoRankIsLateSaysWhy) {
  Verdict v;
  v.reason = "none of the 3 calls was reported by every rank";
  EXPECT_EQ(RenderVerdict(v), "no rank is late: none of the 3 calls was reported by every rank");
}

TEST(VerdictTextTest, TheJobThenEachCommunicator) {
  JobVerdict job;
  job.job = IssueVerdict();
  job.communicators.push_back({0x2a, 2, IssueVerdict()});
  Verdict quiet;
  quiet.reason = "no collective calls";
  job.communicators.push_back({0x77, 4, quiet});
  EXPECT_EQ(RenderJobVerdict(job),
            "job: " + RenderVerdict(IssueVerdict()) + "\n" +
                "communicator 0x2a (2 ranks): " + RenderVerdict(IssueVerdict()) + "\n" +
                "communicator 0x77 (4 ranks): no rank is late: no collective calls\n");
}

// A job of `calls` judged calls of two ranks, the first `on_gpu` of them timed by the GPUs.
MatchedJob CallsTimedBy(int calls, int on_gpu) {
  MatchedJob job;
  CommunicatorCalls& comm = job.communicators.emplace_back();
  comm.nranks = 2;
  for (int i = 0; i < calls; ++i) {
    MatchedCall& call = comm.calls.emplace_back();
    call.complete = true;
    call.gpu_times = i < on_gpu;
  }
  MatchedCall& incomplete = comm.calls.emplace_back();  // not judged: not counted
  incomplete.gpu_times = true;
  return job;
}

TEST(VerdictTextTest, TheArrivalsClockIsSaid) {
  EXPECT_EQ(RenderArrivalClock(CallsTimedBy(38, 38)),
            "arrivals: when each rank's GPU began the call's NCCL kernel (38 judged calls)");
  EXPECT_EQ(RenderArrivalClock(CallsTimedBy(38, 0)),
            "arrivals: when each rank's host called NCCL (38 judged calls; no call's kernel was "
            "timed on every rank)");
  EXPECT_EQ(RenderArrivalClock(CallsTimedBy(38, 30)),
            "arrivals: GPU kernel starts at 30 of 38 judged calls, host call times at the rest "
            "(their kernel was not timed on every rank)");
}

}  // namespace
}  // namespace protond::view
