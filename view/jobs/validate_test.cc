#include "view/jobs/validate.h"

#include <functional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::view {
namespace {

using ::testing::HasSubstr;

CollectiveRecordUntrusted Good(int64_t rank = 0, uint64_t seq = 0) {
  return {.job = "job-7",
          .host = "node01",
          .rank = rank,
          .pid = 1000 + rank,
          .comm_id = 0x2a,
          .seq = seq,
          .op = "AllReduce",
          .bytes = 4096,
          .datatype = "f32",
          .algorithm = "RING",
          .protocol = "LL",
          .nranks = 2,
          .start_ns = 100,
          .end_ns = 200,
          .scope_path = "train/step"};
}

struct Case {
  const char* name;
  std::function<void(CollectiveRecordUntrusted&)> spoil;
  CollectiveProblem problem;
  const char* message;  // a part of the message, with the value that was wrong
};

// Each rule on its own: the spoiled record is left out, counted under its problem and described;
// the good records around it are kept.
TEST(ValidateTest, EachRuleLeavesOutTheRecordAndKeepsTheRest) {
  using P = CollectiveProblem;
  const Case cases[] = {
      {"empty op", [](auto& r) { r.op = ""; }, P::kEmptyOp, "op is empty"},
      {"unknown op", [](auto& r) { r.op = "AllReduceX"; }, P::kUnknownOp, "\"AllReduceX\""},
      {"nranks 0", [](auto& r) { r.nranks = 0; }, P::kBadRanks, "nranks 0 is not in"},
      {"nranks negative", [](auto& r) { r.nranks = -3; }, P::kBadRanks, "nranks -3"},
      {"nranks huge", [](auto& r) { r.nranks = int64_t{1} << 40; }, P::kBadRanks,
       "nranks 1099511627776"},
      {"rank = nranks", [](auto& r) { r.rank = 2; }, P::kRankOutOfRange, "rank 2 is not in 0..1"},
      {"rank negative", [](auto& r) { r.rank = -1; }, P::kRankOutOfRange, "rank -1"},
      {"pid 0", [](auto& r) { r.pid = 0; }, P::kBadPid, "pid 0"},
      {"end before start", [](auto& r) { r.end_ns = 99; }, P::kBadTimes, "ends before it starts"},
      {"negative start", [](auto& r) { r.start_ns = -5; }, P::kBadTimes, "start is negative"},
      {"gpu end before start",
       [](auto& r) {
         r.gpu = TimeSpanNs{500, 400};
       },
       P::kBadTimes, "gpu start_ns 500 and end_ns 400: it ends before it starts"},
      {"gpu negative start",
       [](auto& r) {
         r.gpu = TimeSpanNs{-1, 400};
       },
       P::kBadTimes, "gpu start_ns -1"},
      {"absurd bytes", [](auto& r) { r.bytes = (uint64_t{1} << 40) + 1; }, P::kAbsurdBytes,
       "bytes 1099511627777"},
      {"long host", [](auto& r) { r.host = std::string(300, 'h'); }, P::kBadText,
       "host is 300 bytes"},
      {"long scope", [](auto& r) { r.scope_path = std::string(5000, 's'); }, P::kBadText,
       "scope_path is 5000 bytes"},
      {"not UTF-8", [](auto& r) { r.algorithm = "RI\xffNG"; }, P::kBadText,
       "algorithm \"RI\\xffNG\" is not UTF-8"},
      {"other job", [](auto& r) { r.job = "job-8"; }, P::kOtherJob, "\"job-8\" is not \"job-7\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CollectiveRecordUntrusted bad = Good(0, 1);
    c.spoil(bad);
    const ValidatedCollectives out =
        ValidateCollectives({Good(0, 0), Good(1, 0), bad, Good(1, 1)}, "job-7");
    ASSERT_EQ(out.records.size(), 3u);
    EXPECT_EQ(out.stats.accepted, 3u);
    EXPECT_EQ(out.stats.Count(c.problem), 1u);
    EXPECT_EQ(out.stats.TotalRejected(), 1u);
    ASSERT_EQ(out.stats.messages.size(), 1u);
    EXPECT_THAT(out.stats.messages[0], HasSubstr("record 2: "));
    EXPECT_THAT(out.stats.messages[0], HasSubstr(CollectiveProblemName(c.problem)));
    EXPECT_THAT(out.stats.messages[0], HasSubstr(c.message));
  }
}

TEST(ValidateTest, TheFirstAcceptedRecordFixesWhatTheLaterOnesMustAgreeWith) {
  using P = CollectiveProblem;
  CollectiveRecordUntrusted duplicate = Good(0, 0);
  duplicate.start_ns = 150;
  CollectiveRecordUntrusted other_nranks = Good(1, 1);
  other_nranks.nranks = 4;
  CollectiveRecordUntrusted moved = Good(1, 2);
  moved.pid = 4242;
  CollectiveRecordUntrusted other_op = Good(1, 0);
  other_op.op = "broadcast";
  const ValidatedCollectives out =
      ValidateCollectives({Good(0, 0), duplicate, Good(1, 1), other_nranks, moved, other_op}, "");
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_EQ(out.records[0].start_ns, 100);  // the first of the duplicates
  EXPECT_EQ(out.records[0].op, CollectiveOp::kAllReduce);
  EXPECT_EQ(out.stats.Count(P::kDuplicateCall), 1u);
  EXPECT_EQ(out.stats.Count(P::kRanksMismatch), 1u);
  EXPECT_EQ(out.stats.Count(P::kRankMoved), 1u);
  EXPECT_EQ(out.stats.Count(P::kOpMismatch), 1u);
  ASSERT_EQ(out.stats.messages.size(), 4u);
  EXPECT_EQ(out.stats.messages[0],
            "record 1: duplicate_call: call 0 of communicator 0x2a from rank 0 came before");
  EXPECT_EQ(out.stats.messages[1],
            "record 3: nranks_mismatch: nranks 4 differs from communicator 0x2a's 2");
  EXPECT_EQ(out.stats.messages[2],
            "record 4: rank_moved: rank 1 of communicator 0x2a is pid 4242 on \"node01\", was pid "
            "1001 on \"node01\"");
  EXPECT_EQ(out.stats.messages[3],
            "record 5: op_mismatch: op broadcast differs from all_reduce of call 0 of "
            "communicator 0x2a");
}

// A rejected record fixes nothing: the records after it are judged against the accepted ones.
TEST(ValidateTest, ARejectedRecordFixesNothing) {
  CollectiveRecordUntrusted other_op = Good(1, 0);
  other_op.op = "broadcast";  // rejected: call 0 is an all_reduce
  other_op.pid = 4242;        // so rank 1 is not pid 4242's
  const ValidatedCollectives out = ValidateCollectives({Good(0, 0), other_op, Good(1, 0)}, "");
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_EQ(out.records[1].pid, 1001);
  EXPECT_EQ(out.stats.Count(CollectiveProblem::kOpMismatch), 1u);
  EXPECT_EQ(out.stats.Count(CollectiveProblem::kRankMoved), 0u);
}

TEST(ValidateTest, EveryProblemIsCountedButOnlyTheFirstAreDescribed) {
  std::vector<CollectiveRecordUntrusted> records(100, Good());
  for (auto& r : records) r.op = "\x1b[2J";
  const ValidatedCollectives out = ValidateCollectives(records, "");
  EXPECT_TRUE(out.records.empty());
  EXPECT_EQ(out.stats.Count(CollectiveProblem::kUnknownOp), 100u);
  ASSERT_EQ(out.stats.messages.size(), kMaxProblemMessages);
  // The escape sequence is shown, not sent to the terminal.
  EXPECT_EQ(out.stats.messages[0], "record 0: unknown_op: op \"\\x1b[2J\" is no known collective");
}

TEST(ValidateTest, AGoodRecordIsKeptAsItCame) {
  const ValidatedCollectives out = ValidateCollectives({Good(1, 7)}, "job-7");
  ASSERT_EQ(out.records.size(), 1u);
  const CollectiveRecord& r = out.records[0];
  EXPECT_EQ(r.job, "job-7");
  EXPECT_EQ(r.host, "node01");
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.pid, 1001);
  EXPECT_EQ(r.comm_id, 0x2au);
  EXPECT_EQ(r.seq, 7u);
  EXPECT_EQ(r.op, CollectiveOp::kAllReduce);
  EXPECT_EQ(r.bytes, 4096u);
  EXPECT_EQ(r.datatype, "f32");
  EXPECT_EQ(r.algorithm, "RING");
  EXPECT_EQ(r.protocol, "LL");
  EXPECT_EQ(r.nranks, 2);
  EXPECT_EQ(r.start_ns, 100);
  EXPECT_EQ(r.end_ns, 200);
  EXPECT_EQ(r.scope_path, "train/step");
  EXPECT_EQ(out.stats.TotalRejected(), 0u);
}

}  // namespace
}  // namespace protond::view
