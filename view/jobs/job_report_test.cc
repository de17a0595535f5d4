#include "view/jobs/job_report.h"

#include <optional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/jobs/testing/plugin_calls.h"

namespace protond::view {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kMs = 1'000'000;

// A trace session of two ranks: `calls` all_reduce kernels, rank 1 starting `delay_ns` later,
// both ending together.
struct TwoRanks {
  v1::Session session;
  v1::Trace trace;

  TwoRanks(int calls, uint64_t delay_ns) {
    session.set_id(5);
    session.set_data(v1::Session::TRACE);
    for (int rank = 0; rank < 2; ++rank) {
      v1::SessionProcess* process = session.add_processes();
      process->set_process_id(rank + 1);
      process->set_pid(4000 + rank);
      process->mutable_job()->set_rank(std::to_string(rank));
    }
    v1::TreeNode* node = trace.add_nodes();
    node->set_id(3);
    node->set_name(
        "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE");
    for (int call = 0; call < calls; ++call) {
      for (int rank = 0; rank < 2; ++rank) {
        v1::GpuEvent* event = trace.add_gpu_events();
        event->set_process_id(rank + 1);
        event->set_node_id(3);
        event->set_kind(v1::GpuEvent::KERNEL);
        event->set_start_ns(kMs * (100 + 50 * call) + rank * delay_ns);
        event->set_end_ns(kMs * (101 + 50 * call) + delay_ns);
      }
    }
  }
};

TEST(JobReportTest, ReportsTheLateRankAndTheSummary) {
  const TwoRanks job(50, 10 * kMs);
  const TracedSession sessions[] = {{&job.session, &job.trace, "node01"}};
  EXPECT_EQ(KernelOrderJobReport(sessions, "77").Text(),
            "job 77: session 5, 2 ranks with NCCL kernels, matched in launch order (bytes "
            "unknown: no bandwidth)\n"
            "rank 1 (pid 4001, node01) arrives last at 50 of 50 all_reduce calls, on average "
            "10.0 ms after the first; rank 0 waited 500 ms in all\n"
            "\n"
            "COLLECTIVE  CALLS  JUDGED  RANK TIME  TRANSFER    WAIT  ALGORITHM  PROTOCOL\n"
            "all_reduce     50      50     600 ms   50.0 ms  500 ms  RING       LL\n");
}

TEST(JobReportTest, NamesNoRankWithoutADelay) {
  const TwoRanks job(50, 0);
  const TracedSession sessions[] = {{&job.session, &job.trace, "node01"}};
  EXPECT_THAT(KernelOrderJobReport(sessions, "").Text(),
              HasSubstr("session 5, 2 ranks with NCCL kernels, matched in launch order (bytes "
                        "unknown: no bandwidth)\nno rank is late: "));
}

TEST(JobReportTest, SaysWhenThereIsNothingToMatch) {
  TwoRanks job(0, 0);
  job.trace.mutable_nodes(0)->set_name("_Z4gemmPf");
  v1::GpuEvent* event = job.trace.add_gpu_events();
  event->set_process_id(1);
  event->set_node_id(3);
  event->set_kind(v1::GpuEvent::KERNEL);
  const TracedSession sessions[] = {{&job.session, &job.trace, ""}};
  EXPECT_EQ(KernelOrderJobReport(sessions, "").Text(),
            "session 5, 0 ranks with NCCL kernels, matched in launch order (bytes unknown: no "
            "bandwidth)\n"
            "no NCCL collective kernels: nothing to match\n");
}

TEST(JobReportTest, ListsTheProblemsLast) {
  TwoRanks job(3, 10 * kMs);
  job.trace.mutable_gpu_events()->RemoveLast();  // rank 1's last kernel
  const TracedSession sessions[] = {{&job.session, &job.trace, ""}};
  EXPECT_THAT(KernelOrderJobReport(sessions, "").Text(),
              HasSubstr("  RING       LL\n"
                        "problems:\n"
                        "  the ranks ran different numbers of NCCL collective kernels (rank 0: 3, "
                        "rank 1: 2): only the first 2 of each are matched, which is right only if "
                        "the others came after them\n"));
}

// A tree session of two ranks with the plugin's calls: `calls` AllReduces of 1M f32 on one
// communicator, rank 1 starting `delay_ns` later, both ending together. With `gpu_delay_ns`, each
// call has its kernel: 2 ms after rank 0's call on both GPUs, rank 1's that much later.
struct TwoPluginRanks {
  v1::Session session;
  v1::Collectives collectives;

  TwoPluginRanks(int calls, uint64_t delay_ns, std::optional<uint64_t> gpu_delay_ns = {}) {
    session.set_id(6);
    session.set_data(v1::Session::TREE);
    for (int call = 0; call < calls; ++call) {
      for (uint32_t rank = 0; rank < 2; ++rank) {
        v1::CollectiveEvent* event = testing::AddAllReduceCall(
            collectives, rank, call, kMs * (100 + 50 * call) + rank * delay_ns,
            kMs * (101 + 50 * call) + delay_ns);
        if (gpu_delay_ns.has_value()) {
          event->mutable_kernel()->set_start_ns(kMs * (102 + 50 * call) + rank * *gpu_delay_ns);
          event->mutable_kernel()->set_end_ns(kMs * (103 + 50 * call) + *gpu_delay_ns);
        }
      }
    }
  }
};

TEST(JobReportTest, ThePluginsCallsGiveTheLateRankWithBytesAndBusBandwidth) {
  const TwoPluginRanks job(50, 10 * kMs);
  const PluginSession sessions[] = {{&job.session, &job.collectives, "node01"}};
  EXPECT_EQ(PluginJobReport(sessions, "77").Text(),
            "job 77: session 6, 2 ranks with NCCL collectives, matched by communicator and call "
            "number from NCCL's profiler plugin (with bytes and bus bandwidth)\n"
            "rank 1 (pid 4001, node01) arrives last at 50 of 50 all_reduce calls, on average "
            "10.0 ms after the first; rank 0 waited 500 ms in all\n"
            "arrivals: when each rank's host called NCCL (50 judged calls; no call's kernel was "
            "timed on every rank)\n"
            "\n"
            "COLLECTIVE  CALLS  JUDGED   BYTES  RANK TIME  TRANSFER    WAIT     BUS BW  ALGORITHM"
            "  PROTOCOL\n"
            "all_reduce     50      50  200 MB     600 ms   50.0 ms  500 ms  4.00 GB/s  RING     "
            "  SIMPLE\n");
}

TEST(JobReportTest, ThePluginsCallsNameNoRankWithoutADelay) {
  const TwoPluginRanks job(50, 0);
  const PluginSession sessions[] = {{&job.session, &job.collectives, "node01"}};
  EXPECT_THAT(PluginJobReport(sessions, "").Text(),
              HasSubstr("session 6, 2 ranks with NCCL collectives, matched by communicator and "
                        "call number from NCCL's profiler plugin (with bytes and bus bandwidth)\n"
                        "no rank is late: "));
}

// The GPUs' times decide: a host that calls late while its GPU is still busy is not late, a GPU
// that reaches the kernel late is, though its host called on time.
TEST(JobReportTest, TheCallsKernelsGiveTheArrivalsWhenEveryRankHasThem) {
  const TwoPluginRanks late_host(50, 10 * kMs, 0);
  const PluginSession host_sessions[] = {{&late_host.session, &late_host.collectives, ""}};
  EXPECT_THAT(PluginJobReport(host_sessions, "").Text(),
              HasSubstr("no rank is late: no call had a single last rank"));
  const TwoPluginRanks late_gpu(50, 0, 8 * kMs);
  const PluginSession gpu_sessions[] = {{&late_gpu.session, &late_gpu.collectives, "n1"}};
  EXPECT_THAT(PluginJobReport(gpu_sessions, "").Text(),
              HasSubstr("rank 1 (pid 4001, n1) arrives last at 50 of 50 all_reduce calls, on "
                        "average 8.00 ms after the first; rank 0 waited 400 ms in all\n"
                        "arrivals: when each rank's GPU began the call's NCCL kernel (50 judged "
                        "calls)\n"));
}

// The same job with rank 0 on node01 and rank 1 on node02, whose clock is 1000 s ahead.
struct TwoHostRanks {
  static constexpr int64_t kAheadNs = 1'000'000 * kMs;
  TwoPluginRanks job{50, 10 * kMs};
  v1::Session node02_session;
  v1::Collectives node01_calls, node02_calls;

  TwoHostRanks() {
    node02_session = job.session;
    node02_session.set_id(3);
    for (const v1::CollectiveEvent& event : job.collectives.events()) {
      v1::CollectiveEvent* copy =
          event.rank() == 0 ? node01_calls.add_events() : node02_calls.add_events();
      *copy = event;
      if (event.rank() == 1) {
        copy->set_start_ns(event.start_ns() + kAheadNs);
        copy->set_end_ns(event.end_ns() + kAheadNs);
      }
    }
  }
  std::vector<PluginSession> Sessions() const {
    return {{&job.session, &node01_calls, "node01"}, {&node02_session, &node02_calls, "node02"}};
  }
  static HostClocks Clocks(int64_t error_ns) {
    HostClocks clocks;
    clocks.reference = "node01";
    clocks.offsets = {{"node01", {0, 0}}, {"node02", {-kAheadNs, error_ns}}};
    return clocks;
  }
};

TEST(JobReportTest, RanksOnTwoHostsAreComparedOnTheReferenceClock) {
  const TwoHostRanks hosts;
  const std::string report =
      PluginJobReport(hosts.Sessions(), "77", TwoHostRanks::Clocks(50'000)).Text();
  EXPECT_THAT(report, HasSubstr("job 77: sessions 6, 3, 2 ranks with NCCL collectives"));
  EXPECT_THAT(report, HasSubstr("(with bytes and bus bandwidth)\n"
                                "clock offsets: node02 -1000000.000 ms ± 0.050 ms against node01\n"
                                "rank 1 (pid 4001, node02) arrives last at 50 of 50 all_reduce "
                                "calls, on average 10.0 ms after the first;"));
}

TEST(JobReportTest, RanksOnTwoHostsWithoutAnOffsetAreNotCompared) {
  const TwoHostRanks hosts;
  HostClocks unknown;
  unknown.reference = "node01";
  unknown.offsets = {{"node01", {0, 0}}};
  unknown.unknown = {{"node02", "its protond does not serve GetClock"}};
  const std::string report = PluginJobReport(hosts.Sessions(), "77", unknown).Text();
  EXPECT_THAT(report, HasSubstr("no clock offset for node02 (its protond does not serve GetClock): "
                                "its calls with other hosts' ranks are not compared\n"));
  EXPECT_THAT(report, HasSubstr("calls are not compared: the call spans hosts node01, node02; no "
                                "clock offset is known for node02\n"));
  EXPECT_THAT(report, ::testing::Not(HasSubstr("arrives last")));
}

TEST(JobReportTest, ALatenessWithinTheClocksErrorNamesNoRank) {
  const TwoHostRanks hosts;
  const std::string report =
      PluginJobReport(hosts.Sessions(), "77", TwoHostRanks::Clocks(15 * kMs)).Text();
  EXPECT_THAT(report, HasSubstr("clock offsets: node02 -1000000.000 ms ± 15.0 ms against node01\n"
                                "no rank is late: rank 1's median lateness 10.0 ms is below the "
                                "15.0 ms needed (at least 1.00 ms, and 5% of the median transfer "
                                "time 1.00 ms, and the clock offsets' error 15.0 ms)\n"));
}

TEST(JobReportTest, ThePluginsBadCallsAreProblems) {
  TwoPluginRanks job(3, 10 * kMs);
  job.collectives.mutable_events(5)->set_op("Frobnicate");  // rank 1's last call
  const PluginSession sessions[] = {{&job.session, &job.collectives, ""}};
  EXPECT_THAT(PluginJobReport(sessions, "").Text(), HasSubstr("problems:\n"
                                                              "  record 5: unknown_op: "));
}

}  // namespace
}  // namespace protond::view
