#include "view/jobs/collective_table.h"

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

// Two ranks, two AllReduces of 4 MB each, rank 1 2 ms late, each taking 1 ms once both are there.
MatchedJob TwoAllReduces() {
  std::vector<CollectiveRecordUntrusted> records;
  for (uint64_t seq = 0; seq < 2; ++seq) {
    for (int64_t rank = 0; rank < 2; ++rank) {
      CollectiveRecordUntrusted& r = records.emplace_back();
      r.host = "node01";
      r.pid = 100 + rank;
      r.rank = rank;
      r.nranks = 2;
      r.comm_id = 7;
      r.seq = seq;
      r.op = "all_reduce";
      r.bytes = 4'000'000;
      r.algorithm = "RING";
      r.protocol = "LL";
      const int64_t call_ns = static_cast<int64_t>(seq) * 10 * kMs;
      r.start_ns = call_ns + rank * 2 * kMs;
      r.end_ns = call_ns + 3 * kMs;
    }
  }
  return MatchCollectives(ValidateCollectives(records, "").records, {});
}

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
  const std::string table = RenderCollectiveTable(TwoAllReduces(), true, 1);
  EXPECT_NE(table.find("all_reduce"), std::string::npos);
  EXPECT_EQ(RenderCollectiveTable({}, true, 1).find("all_reduce"), std::string::npos);
}

}  // namespace
}  // namespace protond::view
