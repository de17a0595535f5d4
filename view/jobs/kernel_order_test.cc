#include "view/jobs/kernel_order.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/jobs/match.h"
#include "view/jobs/validate.h"
#include "view/jobs/verdict.h"

namespace protond::view {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr uint64_t kMs = 1'000'000;
constexpr char kAllReduce[] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

// A trace session whose processes (process_id = rank + 1, pid = 100 + rank) carry RANK.
class TraceBuilder {
 public:
  explicit TraceBuilder(int ranks) {
    session_.set_id(7);
    session_.set_data(v1::Session::TRACE);
    for (int rank = 0; rank < ranks; ++rank) {
      v1::SessionProcess* process = session_.add_processes();
      process->set_process_id(rank + 1);
      process->set_pid(100 + rank);
      process->mutable_job()->set_rank(std::to_string(rank));
    }
  }

  // One kernel of `name` on the process of `rank`.
  void Kernel(int rank, const std::string& name, uint64_t start_ns, uint64_t end_ns,
              v1::GpuEvent::Kind kind = v1::GpuEvent::KERNEL) {
    v1::GpuEvent* event = trace_.add_gpu_events();
    event->set_process_id(rank + 1);
    event->set_node_id(NodeOf(name));
    event->set_kind(kind);
    event->set_start_ns(start_ns);
    event->set_end_ns(end_ns);
  }

  // `calls` all_reduce kernels on every rank, 50 ms apart, rank r starting r * delay later; all
  // end together.
  void Steps(int ranks, int calls, uint64_t delay_ns) {
    for (int call = 0; call < calls; ++call) {
      const uint64_t start = 1000 * kMs + call * 50 * kMs;
      for (int rank = 0; rank < ranks; ++rank) {
        Kernel(rank, kAllReduce, start + rank * delay_ns, start + (ranks - 1) * delay_ns + kMs);
      }
    }
  }

  v1::Session& session() { return session_; }
  LaunchOrderRecords Records() {
    const TracedSession traced[] = {{&session_, &trace_, ""}};
    return CollectivesFromKernelOrder(traced, "job-1");
  }

 private:
  uint32_t NodeOf(const std::string& name) {
    for (const v1::TreeNode& node : trace_.nodes()) {
      if (node.name() == name) return node.id();
    }
    v1::TreeNode* node = trace_.add_nodes();
    node->set_id(trace_.nodes_size() + 1);
    node->set_name(name);
    return node->id();
  }

  v1::Session session_;
  v1::Trace trace_;
};

TEST(KernelOrderTest, EachRanksKernelsAreNumberedInStartOrder) {
  TraceBuilder builder(2);
  // Rank 1's events arrive out of order; its start order decides.
  builder.Kernel(1, kAllReduce, 30 * kMs, 31 * kMs);
  builder.Kernel(1, kAllReduce, 10 * kMs, 11 * kMs);
  builder.Kernel(0, "ncclDevKernel_AllGather_RING_LL128", 9 * kMs, 11 * kMs);
  builder.Kernel(0, kAllReduce, 25 * kMs, 31 * kMs);
  const LaunchOrderRecords out = builder.Records();
  EXPECT_EQ(out.nranks, 2);
  EXPECT_THAT(out.problems, IsEmpty());
  ASSERT_EQ(out.records.size(), 4u);
  const CollectiveRecordUntrusted& first = out.records[0];
  EXPECT_EQ(first.job, "job-1");
  EXPECT_EQ(first.rank, 0);
  EXPECT_EQ(first.pid, 100);
  EXPECT_EQ(first.comm_id, kLaunchOrderCommId);
  EXPECT_EQ(first.seq, 0u);
  EXPECT_EQ(first.op, "AllGather");
  EXPECT_EQ(first.algorithm, "RING");
  EXPECT_EQ(first.protocol, "LL128");
  EXPECT_EQ(first.bytes, 0u);
  EXPECT_EQ(first.nranks, 2);
  EXPECT_EQ(first.start_ns, static_cast<int64_t>(9 * kMs));
  EXPECT_EQ(out.records[2].rank, 1);
  EXPECT_EQ(out.records[2].seq, 0u);
  EXPECT_EQ(out.records[2].start_ns, static_cast<int64_t>(10 * kMs));
  EXPECT_EQ(out.records[3].seq, 1u);
  EXPECT_EQ(out.records[3].start_ns, static_cast<int64_t>(30 * kMs));
  EXPECT_EQ(out.records[3].datatype, "f32");
}

TEST(KernelOrderTest, TwoRanksInOrderNameTheLateOne) {
  TraceBuilder builder(2);
  builder.Steps(2, 50, 10 * kMs);
  const LaunchOrderRecords out = builder.Records();
  EXPECT_THAT(out.problems, IsEmpty());
  const ValidatedCollectives valid = ValidateCollectives(out.records, "job-1");
  EXPECT_EQ(valid.stats.TotalRejected(), 0u);
  const MatchedJob matched = MatchCollectives(valid.records, {});
  ASSERT_EQ(matched.communicators.size(), 1u);
  EXPECT_EQ(matched.communicators[0].calls.size(), 50u);
  const JobVerdict verdict = JudgeJob(matched, {});
  EXPECT_TRUE(verdict.job.late) << verdict.job.reason;
  EXPECT_EQ(verdict.job.rank, 1);
  EXPECT_EQ(verdict.job.last_calls, 50u);
  EXPECT_EQ(verdict.job.mean_lateness_ns, 10.0 * kMs);
}

TEST(KernelOrderTest, UnequalCountsMatchTheCommonPrefixAndSaySo) {
  TraceBuilder builder(2);
  builder.Steps(2, 3, 0);
  builder.Kernel(1, kAllReduce, 5000 * kMs, 5001 * kMs);
  builder.Kernel(1, kAllReduce, 5100 * kMs, 5101 * kMs);
  const LaunchOrderRecords out = builder.Records();
  EXPECT_THAT(out.problems,
              ElementsAre("the ranks ran different numbers of NCCL collective kernels (rank 0: "
                          "3, rank 1: 5): only the first 3 of each are matched, which is right "
                          "only if the others came after them"));
  EXPECT_EQ(out.records.size(), 6u);
  for (const CollectiveRecordUntrusted& record : out.records) EXPECT_LT(record.seq, 3u);
}

TEST(KernelOrderTest, OtherKernelsAndActivitiesAreIgnored) {
  TraceBuilder builder(2);
  builder.Kernel(0, "_Z4gemmPfS_", 1 * kMs, 2 * kMs);
  builder.Kernel(1, "triton_poi_fused_add_0", 1 * kMs, 2 * kMs);
  builder.Kernel(0, kAllReduce, 3 * kMs, 4 * kMs, v1::GpuEvent::MEMCPY);
  builder.Kernel(0, kAllReduce, 5 * kMs, 6 * kMs);
  builder.Kernel(1, kAllReduce, 5 * kMs, 6 * kMs);
  const LaunchOrderRecords out = builder.Records();
  EXPECT_THAT(out.problems, IsEmpty());
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_EQ(out.records[0].start_ns, static_cast<int64_t>(5 * kMs));
}

TEST(KernelOrderTest, SendRecvAndGenericKernelsAreLeftOutAndCounted) {
  TraceBuilder builder(2);
  builder.Kernel(0, "ncclDevKernel_SendRecv", 1 * kMs, 2 * kMs);
  builder.Kernel(1, "ncclDevKernel_Generic_1", 1 * kMs, 2 * kMs);
  builder.Kernel(0, kAllReduce, 5 * kMs, 6 * kMs);
  builder.Kernel(1, kAllReduce, 5 * kMs, 6 * kMs);
  const LaunchOrderRecords out = builder.Records();
  ASSERT_EQ(out.problems.size(), 2u);
  EXPECT_THAT(out.problems[0], HasSubstr("1 SendRecv kernels left out"));
  EXPECT_THAT(out.problems[1], HasSubstr("1 NCCL kernels left out whose name does not say"));
  EXPECT_EQ(out.records.size(), 2u);
}

TEST(KernelOrderTest, AProcessWithoutARankIsLeftOutAndNamed) {
  TraceBuilder builder(2);
  builder.session().mutable_processes(1)->mutable_job()->set_rank("one");
  builder.Steps(2, 2, 0);
  LaunchOrderRecords out = builder.Records();
  EXPECT_THAT(out.problems, ElementsAre("pid 101 of session 7 ran 2 NCCL kernels but has no RANK "
                                        "or LOCAL_RANK: left out"));
  EXPECT_EQ(out.nranks, 1);
  EXPECT_EQ(out.records.size(), 2u);
  // LOCAL_RANK stands in for a missing RANK.
  builder.session().mutable_processes(1)->mutable_job()->set_local_rank("1");
  out = builder.Records();
  EXPECT_THAT(out.problems, IsEmpty());
  EXPECT_EQ(out.nranks, 2);
}

TEST(KernelOrderTest, HostileTracesAreReadWithoutHarm) {
  TraceBuilder builder(2);
  builder.session().mutable_processes(1)->mutable_job()->set_rank("99999999999999999999");
  builder.Kernel(0, kAllReduce, UINT64_MAX, 1);  // past INT64_MAX, and ends before it starts
  builder.Kernel(0, std::string(5000, 'x'), 1, 2);
  builder.Kernel(1, kAllReduce, 1, 2);
  const LaunchOrderRecords out = builder.Records();
  // Rank 1's RANK is no number a communicator holds.
  EXPECT_THAT(out.problems, ElementsAre("pid 101 of session 7 ran 1 NCCL kernels but has no RANK "
                                        "or LOCAL_RANK: left out"));
  ASSERT_EQ(out.records.size(), 1u);
  EXPECT_EQ(out.records[0].start_ns, -1);
  const ValidatedCollectives valid = ValidateCollectives(out.records, "job-1");
  EXPECT_EQ(valid.stats.Count(CollectiveProblem::kBadTimes), 1u);
}

TEST(KernelOrderTest, KernelsOfAnUnknownProcessOrNodeAreLeftOut) {
  TraceBuilder builder(1);
  builder.Kernel(0, kAllReduce, 1 * kMs, 2 * kMs);
  builder.Kernel(5, kAllReduce, 1 * kMs, 2 * kMs);  // process 6 is not the session's
  LaunchOrderRecords out = builder.Records();
  EXPECT_THAT(out.problems,
              ElementsAre("1 NCCL kernels left out: their process is not the session's"));
  EXPECT_EQ(out.records.size(), 1u);
}

TEST(KernelOrderTest, SessionsOfSeveralHostsAreOneJob) {
  TraceBuilder first(1);
  first.Steps(1, 2, 0);
  v1::Session second_session;
  v1::Trace second_trace;
  second_session.set_id(3);
  v1::SessionProcess* process = second_session.add_processes();
  process->set_process_id(1);
  process->set_pid(200);
  process->mutable_job()->set_rank("1");
  v1::TreeNode* node = second_trace.add_nodes();
  node->set_id(4);
  node->set_name(kAllReduce);
  for (int call = 0; call < 2; ++call) {
    v1::GpuEvent* event = second_trace.add_gpu_events();
    event->set_process_id(1);
    event->set_node_id(4);
    event->set_kind(v1::GpuEvent::KERNEL);
    event->set_start_ns(call * kMs);
    event->set_end_ns(call * kMs + 1);
  }
  ASSERT_EQ(first.Records().records.size(), 2u);
  const TracedSession sessions[] = {{&first.session(), nullptr, "node01"},
                                    {&second_session, &second_trace, "node02"}};
  const LaunchOrderRecords out = CollectivesFromKernelOrder(sessions, "");
  // The first has no trace: only the second's rank remains.
  EXPECT_EQ(out.nranks, 1);
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_EQ(out.records[0].host, "node02");
  EXPECT_EQ(out.records[0].rank, 1);
  EXPECT_EQ(out.records[0].pid, 200);
}

}  // namespace
}  // namespace protond::view
