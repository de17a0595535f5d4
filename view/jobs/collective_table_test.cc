#include "view/jobs/collective_table.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "view/jobs/validate.h"

namespace protond::view {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(CollectiveTableTest, BytesTakeThreeFiguresInPowersOfAThousand) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(999), "999 B");
  EXPECT_EQ(FormatBytes(1000), "1.00 kB");
  EXPECT_EQ(FormatBytes(4'194'304), "4.19 MB");
  EXPECT_EQ(FormatBytes(209'715'200), "210 MB");
  EXPECT_EQ(FormatBytes(999'600'000), "1.00 GB");
  EXPECT_EQ(FormatBytes(uint64_t{5} << 50), "5629 TB");  // the largest unit
}

// Two ranks, two calls of `op` of 4 MB each on communicator `comm_id`, rank 1 2 ms late, each
// call ending `end_ms` after rank 0 started it.
std::vector<CollectiveRecordUntrusted> TwoCalls(const std::string& op, uint64_t comm_id,
                                                int64_t end_ms) {
  std::vector<CollectiveRecordUntrusted> records;
  for (uint64_t seq = 0; seq < 2; ++seq) {
    for (int64_t rank = 0; rank < 2; ++rank) {
      CollectiveRecordUntrusted& r = records.emplace_back();
      r.host = "node01";
      r.pid = 100 + rank;
      r.rank = rank;
      r.nranks = 2;
      r.comm_id = comm_id;
      r.seq = seq;
      r.op = op;
      r.bytes = 4'000'000;
      r.algorithm = "RING";
      r.protocol = "LL";
      const int64_t call_ns = static_cast<int64_t>(seq) * 10 * kMs;
      r.start_ns = call_ns + rank * 2 * kMs;
      r.end_ns = call_ns + end_ms * kMs;
    }
  }
  return records;
}

MatchedJob Matched(const std::vector<CollectiveRecordUntrusted>& records) {
  return MatchCollectives(ValidateCollectives(records, "").records, {});
}

// Each AllReduce takes 1 ms once both ranks are there.
MatchedJob TwoAllReduces() { return Matched(TwoCalls("all_reduce", 7, 3)); }

TEST(CollectiveTableTest, WithBytesTheTableHasTheBytesAndTheMedianBusBandwidth) {
  EXPECT_EQ(
      RenderCollectiveTable(TwoAllReduces(), true),
      "COLLECTIVE  CALLS  JUDGED    BYTES  RANK TIME  TRANSFER     WAIT     BUS BW  ALGORITHM  "
      "PROTOCOL\n"
      "all_reduce      2       2  8.00 MB    8.00 ms   2.00 ms  4.00 ms  4.00 GB/s  RING       "
      "LL\n");
  EXPECT_EQ(RenderCollectiveTable(TwoAllReduces(), false),
            "COLLECTIVE  CALLS  JUDGED  RANK TIME  TRANSFER     WAIT  ALGORITHM  PROTOCOL\n"
            "all_reduce      2       2    8.00 ms   2.00 ms  4.00 ms  RING       LL\n");
}

TEST(CollectiveTableTest, ALimitKeepsTheHeaviestRows) {
  std::vector<CollectiveRecordUntrusted> records = TwoCalls("broadcast", 8, 4);
  for (const CollectiveRecordUntrusted& r : TwoCalls("all_reduce", 7, 3)) records.push_back(r);
  const MatchedJob matched = Matched(records);
  const std::string both = RenderCollectiveTable(matched, true);
  EXPECT_LT(both.find("\nbroadcast "), both.find("\nall_reduce ")) << both;  // heaviest first
  const std::string one = RenderCollectiveTable(matched, true, 1);
  EXPECT_NE(one.find("\nbroadcast "), std::string::npos) << one;
  EXPECT_EQ(one.find("\nall_reduce "), std::string::npos) << one;
}

}  // namespace
}  // namespace protond::view
