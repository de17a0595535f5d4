#include "view/jobs/match.h"

#include "gtest/gtest.h"
#include "view/jobs/testing/synthetic_job.h"
#include "view/jobs/validate.h"

namespace protond::view {
namespace {

using testing::kMs;

CollectiveRecord Record(int rank, uint64_t seq, int64_t start_ns, int64_t end_ns, int nranks = 3,
                        std::string host = "node01") {
  return {.job = "job-7",
          .host = std::move(host),
          .rank = rank,
          .pid = 1000 + rank,
          .comm_id = 0x2a,
          .seq = seq,
          .op = CollectiveOp::kAllReduce,
          .bytes = 3'000'000,
          .datatype = "f32",
          .algorithm = "RING",
          .protocol = "LL",
          .nranks = nranks,
          .start_ns = start_ns,
          .end_ns = end_ns,
          .scope_path = ""};
}

MatchedJob Match(const testing::SyntheticJob& job, const MatchOptions& options = {}) {
  ValidatedCollectives valid = ValidateCollectives(testing::Generate(job), job.job);
  EXPECT_EQ(valid.stats.TotalRejected(), 0u);
  return MatchCollectives(valid.records, options);
}

TEST(MatchTest, ACompleteCallHasArrivalOrderLatenessWaitsAndBandwidth) {
  const MatchedJob job = MatchCollectives(
      {Record(0, 5, 100, 1'120), Record(1, 5, 130, 1'130), Record(2, 5, 110, 1'125)}, {});
  ASSERT_EQ(job.communicators.size(), 1u);
  const CommunicatorCalls& comm = job.communicators[0];
  EXPECT_EQ(comm.comm_id, 0x2au);
  EXPECT_EQ(comm.nranks, 3);
  ASSERT_EQ(comm.calls.size(), 1u);
  const MatchedCall& call = comm.calls[0];
  EXPECT_EQ(call.seq, 5u);
  EXPECT_TRUE(call.complete);
  EXPECT_TRUE(call.judged());
  ASSERT_EQ(call.arrivals.size(), 3u);
  EXPECT_EQ(call.arrivals[0].rank, 0);
  EXPECT_EQ(call.arrivals[1].rank, 2);
  EXPECT_EQ(call.arrivals[2].rank, 1);
  EXPECT_EQ(call.arrivals[0].lateness_ns, 0);
  EXPECT_EQ(call.arrivals[1].lateness_ns, 10);
  EXPECT_EQ(call.arrivals[2].lateness_ns, 30);
  EXPECT_EQ(call.arrivals[0].wait_ns, 30);
  EXPECT_EQ(call.arrivals[1].wait_ns, 20);
  EXPECT_EQ(call.arrivals[2].wait_ns, 0);
  EXPECT_EQ(call.last_rank, 1);
  EXPECT_EQ(call.transfer_ns, 1'000);           // the last start (130) to the last end (1130)
  EXPECT_DOUBLE_EQ(call.alg_bw_gbps, 3'000.0);  // 3e6 bytes in 1 us
  EXPECT_DOUBLE_EQ(call.bus_bw_gbps, 4'000.0);  // * 2(3-1)/3
  EXPECT_EQ(call.algorithm, "RING");
}

TEST(MatchTest, ACallMissingARankIsKeptButNotJudged) {
  const MatchedJob job = MatchCollectives({Record(0, 0, 100, 200), Record(2, 0, 150, 200)}, {});
  const MatchedCall& call = job.communicators[0].calls[0];
  EXPECT_FALSE(call.complete);
  EXPECT_FALSE(call.judged());
  ASSERT_EQ(call.arrivals.size(), 2u);
  EXPECT_EQ(call.arrivals[1].rank, 2);
  EXPECT_EQ(call.arrivals[1].lateness_ns, 0);
  EXPECT_EQ(call.arrivals[0].wait_ns, 0);
  EXPECT_EQ(call.last_rank, -1);
  EXPECT_EQ(call.transfer_ns, 0);
  EXPECT_EQ(call.bus_bw_gbps, 0);
}

TEST(MatchTest, ATieForLastNamesNoLastRank) {
  const MatchedJob job = MatchCollectives(
      {Record(0, 0, 100, 300), Record(1, 0, 200, 300), Record(2, 0, 200, 300)}, {});
  const MatchedCall& call = job.communicators[0].calls[0];
  EXPECT_TRUE(call.judged());
  EXPECT_EQ(call.last_rank, -1);
  EXPECT_EQ(call.arrivals[0].wait_ns, 100);
}

TEST(MatchTest, SequenceGapsAreListed) {
  std::vector<CollectiveRecord> records;
  for (uint64_t seq : {0, 1, 2, 6, 7, 20}) {
    for (int rank = 0; rank < 2; ++rank) records.push_back(Record(rank, seq, 100, 200, 2));
  }
  const MatchedJob job = MatchCollectives(records, {});
  const CommunicatorCalls& comm = job.communicators[0];
  ASSERT_EQ(comm.calls.size(), 6u);
  EXPECT_EQ(comm.calls[3].seq, 6u);
  ASSERT_EQ(comm.gaps.size(), 2u);
  EXPECT_EQ(comm.gaps[0].first, 3u);
  EXPECT_EQ(comm.gaps[0].last, 5u);
  EXPECT_EQ(comm.gaps[1].first, 8u);
  EXPECT_EQ(comm.gaps[1].last, 19u);
  EXPECT_EQ(comm.missing_seqs, 15u);
  EXPECT_TRUE(comm.exits.empty());
  for (const MatchedCall& call : comm.calls) EXPECT_TRUE(call.judged());
}

TEST(MatchTest, HostileSequenceNumbersDoNotWrapTheGapCount) {
  std::vector<CollectiveRecord> records;
  for (uint64_t seq : {uint64_t{0}, UINT64_MAX / 2, UINT64_MAX}) {
    records.push_back(Record(0, seq, 100, 200, 1));
  }
  const MatchedJob job = MatchCollectives(records, {});
  EXPECT_EQ(job.communicators[0].missing_seqs, UINT64_MAX - 2);
  ASSERT_EQ(job.communicators[0].gaps.size(), 2u);
  EXPECT_EQ(job.communicators[0].gaps[1].last, UINT64_MAX - 1);
}

TEST(MatchTest, ARankThatExitsMidJobLeavesTheRestIncomplete) {
  testing::SyntheticJob synthetic{.nranks = 4, .calls = 20};
  std::vector<CollectiveRecordUntrusted> records = testing::Generate(synthetic);
  std::erase_if(records, [](const auto& r) { return r.rank == 3 && r.seq > 11; });
  const MatchedJob job = MatchCollectives(ValidateCollectives(records, "").records, {});
  const CommunicatorCalls& comm = job.communicators[0];
  ASSERT_EQ(comm.calls.size(), 20u);
  EXPECT_TRUE(comm.calls[11].complete);
  EXPECT_FALSE(comm.calls[12].complete);
  EXPECT_EQ(comm.calls[12].arrivals.size(), 3u);
  ASSERT_EQ(comm.exits.size(), 1u);
  EXPECT_EQ(comm.exits[0].rank, 3);
  EXPECT_EQ(comm.exits[0].last_seq, 11u);
  EXPECT_EQ(comm.exits[0].calls_missed, 8u);
  EXPECT_EQ(comm.members.size(), 4u);
  EXPECT_EQ(comm.members.at(3).pid, 1003);
}

TEST(MatchTest, TwoCommunicatorsAreMatchedApart) {
  testing::SyntheticJob a{.comm_id = 0x2a, .nranks = 2, .calls = 3};
  testing::SyntheticJob b{.comm_id = 0x99, .nranks = 2, .calls = 5, .first_pid = 2000};
  std::vector<CollectiveRecordUntrusted> records = testing::Generate(b);
  for (auto& r : testing::Generate(a)) records.push_back(r);
  const MatchedJob job = MatchCollectives(ValidateCollectives(records, "").records, {});
  ASSERT_EQ(job.communicators.size(), 2u);
  EXPECT_EQ(job.communicators[0].comm_id, 0x2au);
  EXPECT_EQ(job.communicators[0].calls.size(), 3u);
  EXPECT_EQ(job.communicators[1].comm_id, 0x99u);
  EXPECT_EQ(job.communicators[1].calls.size(), 5u);
  EXPECT_EQ(job.communicators[1].members.at(0).pid, 2000);
}

// node02's clock runs 3 s ahead of node01's; rank 1 (on node02) starts 10 ms after rank 0.
testing::SyntheticJob TwoHosts() {
  return {.calls = 4,
          .host_of = {"node01", "node02"},
          .delay_ns = [](int rank, int) { return rank == 1 ? 10 * kMs : 0; },
          .clock_skew_ns = {{"node02", 3'000 * kMs}}};
}

TEST(MatchTest, AcrossHostsWithoutAnOffsetTheComparisonIsRefused) {
  const MatchedJob job = Match(TwoHosts());
  for (const MatchedCall& call : job.communicators[0].calls) {
    EXPECT_TRUE(call.complete);
    EXPECT_FALSE(call.judged());
    EXPECT_EQ(call.refused,
              "the call spans hosts node01, node02; no clock offset is known for node01, node02");
    EXPECT_EQ(call.last_rank, -1);
    EXPECT_EQ(call.arrivals[1].lateness_ns, 0);
  }
  // One offset is not enough either.
  const MatchedJob half = Match(TwoHosts(), {.clock_offset_ns = {{"node01", 0}}});
  EXPECT_EQ(half.communicators[0].calls[0].refused,
            "the call spans hosts node01, node02; no clock offset is known for node02");
}

TEST(MatchTest, AcrossHostsTheOffsetsPutTheTimesOnOneClock) {
  const MatchedJob job =
      Match(TwoHosts(), {.clock_offset_ns = {{"node01", 0}, {"node02", -3'000 * kMs}}});
  for (const MatchedCall& call : job.communicators[0].calls) {
    ASSERT_TRUE(call.judged()) << call.refused;
    EXPECT_EQ(call.last_rank, 1);
    EXPECT_EQ(call.arrivals[1].lateness_ns, 10 * kMs);
    EXPECT_EQ(call.arrivals[0].wait_ns, 10 * kMs);
    EXPECT_EQ(call.transfer_ns, kMs / 2);
  }
  // Without the right offset, rank 0 would seem 2990 ms late.
  const MatchedJob wrong = Match(TwoHosts(), {.clock_offset_ns = {{"node01", 0}, {"node02", 0}}});
  EXPECT_EQ(wrong.communicators[0].calls[0].last_rank, 1);
  EXPECT_EQ(wrong.communicators[0].calls[0].arrivals[1].lateness_ns, 3'010 * kMs);
}

TEST(MatchTest, OneHostNeedsNoOffset) {
  testing::SyntheticJob one_host = TwoHosts();
  one_host.host_of = {"node02", "node02"};
  const MatchedJob job = Match(one_host);
  EXPECT_TRUE(job.communicators[0].calls[0].judged());
  EXPECT_EQ(job.communicators[0].calls[0].arrivals[1].lateness_ns, 10 * kMs);
}

TEST(MatchTest, TimesThatOverflowWithTheOffsetAreRefused) {
  const MatchedJob job = MatchCollectives({Record(0, 0, INT64_MAX - 10, INT64_MAX - 5, 2, "node01"),
                                           Record(1, 0, 100, 200, 2, "node02")},
                                          {.clock_offset_ns = {{"node01", 100}, {"node02", 0}}});
  const MatchedCall& call = job.communicators[0].calls[0];
  EXPECT_EQ(call.refused, "a time is out of range once its host's clock offset is applied");
  EXPECT_EQ(call.arrivals[0].start_ns, 100);  // left as it was: node02's record, unshifted
  const MatchedJob far = MatchCollectives({Record(0, 0, INT64_MAX - 10, INT64_MAX - 5, 2, "node01"),
                                           Record(1, 0, 100, 200, 2, "node02")},
                                          {.clock_offset_ns = {{"node01", 0}, {"node02", -200}}});
  EXPECT_EQ(far.communicators[0].calls[0].refused, "the ranks' times are too far apart to compare");
}

// `record` with its kernel's GPU times.
CollectiveRecord WithGpu(CollectiveRecord record, int64_t start_ns, int64_t end_ns) {
  record.gpu = TimeSpanNs{start_ns, end_ns};
  return record;
}

// Where every rank's kernel was timed, the arrivals are the GPUs' (the host of rank 1 called
// late, but its GPU was there first); where one rank's was not, all are the hosts'.
TEST(MatchTest, ArrivalsAreTheGpusWhenEveryRankHasThemElseTheHosts) {
  const MatchedJob job =
      MatchCollectives({WithGpu(Record(0, 1, 100, 150, 2), 500, 1'500),
                        WithGpu(Record(1, 1, 300, 350, 2), 400, 1'500),
                        WithGpu(Record(0, 2, 100, 150, 2), 500, 1'500), Record(1, 2, 300, 350, 2)},
                       {});
  ASSERT_EQ(job.communicators.size(), 1u);
  const std::vector<MatchedCall>& calls = job.communicators[0].calls;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_TRUE(calls[0].gpu_times);
  EXPECT_EQ(calls[0].last_rank, 0);
  EXPECT_EQ(calls[0].arrivals[1].lateness_ns, 100);  // GPU 0 at 500, GPU 1 at 400
  EXPECT_EQ(calls[0].transfer_ns, 1'000);            // 500 to 1500
  EXPECT_FALSE(calls[1].gpu_times);
  EXPECT_EQ(calls[1].last_rank, 1);
  EXPECT_EQ(calls[1].arrivals[1].lateness_ns, 200);  // hosts at 100 and 300
}

}  // namespace
}  // namespace protond::view
