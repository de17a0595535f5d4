#include "view/jobs/collective_summary.h"

#include "gtest/gtest.h"

namespace protond::view {
namespace {

CollectiveRecord Record(uint64_t comm, CollectiveOp op, int rank, uint64_t seq, int64_t start_ns,
                        int64_t end_ns, int nranks = 2, std::string algorithm = "RING") {
  return {.job = "job-7",
          .host = "node01",
          .rank = rank,
          .pid = 1000 + rank,
          .comm_id = comm,
          .seq = seq,
          .op = op,
          .bytes = 1'000'000,
          .datatype = "bf16",
          .algorithm = std::move(algorithm),
          .protocol = "SIMPLE",
          .nranks = nranks,
          .start_ns = start_ns,
          .end_ns = end_ns,
          .scope_path = ""};
}

TEST(CollectiveSummaryTest, OneRowPerOpAndCommunicatorWithExactSums) {
  using Op = CollectiveOp;
  const std::vector<CollectiveRecord> records = {
      // comm 1, all_reduce, 3 calls; the third misses rank 1.
      Record(1, Op::kAllReduce, 0, 0, 0, 2'000),
      Record(1, Op::kAllReduce, 1, 0, 1'000, 2'000),
      Record(1, Op::kAllReduce, 0, 1, 10'000, 10'500, 2, "TREE"),
      Record(1, Op::kAllReduce, 1, 1, 10'000, 10'500, 2, "TREE"),
      Record(1, Op::kAllReduce, 0, 2, 20'000, 20'100, 2, "TREE"),
      // comm 1, broadcast, 1 call.
      Record(1, Op::kBroadcast, 0, 3, 30'000, 30'400),
      Record(1, Op::kBroadcast, 1, 3, 30'200, 30'400),
  };
  const std::vector<CollectiveSummary> rows = SummarizeCollectives(MatchCollectives(records, {}));
  ASSERT_EQ(rows.size(), 2u);
  const CollectiveSummary& ar = rows[0];  // 4100 ns of rank time against 600
  EXPECT_EQ(ar.op, Op::kAllReduce);
  EXPECT_EQ(ar.comm_id, 1u);
  EXPECT_EQ(ar.nranks, 2);
  EXPECT_EQ(ar.calls, 3u);
  EXPECT_EQ(ar.judged_calls, 2u);
  EXPECT_EQ(ar.bytes, 3'000'000u);
  EXPECT_EQ(ar.rank_time_ns, 2'000 + 1'000 + 500 + 500 + 100);
  EXPECT_EQ(ar.transfer_ns, 1'000 + 500);
  EXPECT_EQ(ar.algorithm, "TREE");  // 2 calls of 3
  EXPECT_EQ(ar.protocol, "SIMPLE");
  // Bus bandwidth: 1e6 bytes in 1000 ns is 1000 GB/s, in 500 ns 2000 GB/s; * 2(2-1)/2; median.
  EXPECT_DOUBLE_EQ(ar.median_bus_bw_gbps, 1'500.0);
  EXPECT_EQ(ar.wait_ns, 1'000);
  const CollectiveSummary& bc = rows[1];
  EXPECT_EQ(bc.op, Op::kBroadcast);
  EXPECT_EQ(bc.calls, 1u);
  EXPECT_EQ(bc.rank_time_ns, 600);
  EXPECT_EQ(bc.transfer_ns, 200);
  EXPECT_DOUBLE_EQ(bc.median_bus_bw_gbps, 5'000.0);  // 1e6 / 200 * 1
  EXPECT_EQ(bc.wait_ns, 200);
}

TEST(CollectiveSummaryTest, TiesInTimeKeepCommunicatorOrderAndAnEmptyJobHasNoRows) {
  using Op = CollectiveOp;
  const std::vector<CollectiveRecord> records = {Record(9, Op::kAllGather, 0, 0, 0, 100, 1),
                                                 Record(3, Op::kAllGather, 0, 0, 0, 100, 1)};
  const std::vector<CollectiveSummary> rows = SummarizeCollectives(MatchCollectives(records, {}));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].comm_id, 3u);
  EXPECT_EQ(rows[1].comm_id, 9u);
  EXPECT_DOUBLE_EQ(rows[0].median_bus_bw_gbps, 0.0);  // one rank moves nothing
  EXPECT_TRUE(SummarizeCollectives(MatchedJob{}).empty());
}

TEST(CollectiveSummaryTest, AnAlgorithmTieGoesToTheFirstByName) {
  using Op = CollectiveOp;
  const std::vector<CollectiveRecord> records = {
      Record(1, Op::kAllReduce, 0, 0, 0, 100, 1, "TREE"),
      Record(1, Op::kAllReduce, 0, 1, 0, 100, 1, "RING")};
  const std::vector<CollectiveSummary> rows = SummarizeCollectives(MatchCollectives(records, {}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].algorithm, "RING");
}

}  // namespace
}  // namespace protond::view
