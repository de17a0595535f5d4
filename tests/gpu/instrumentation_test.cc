// Intra-kernel instrumentation on real CUDA work (ctest label gpu): two_regions, compiled by
// mlir-instrument (tests/gpu/compile_kernels.sh) per warp and per warp group, launched by
// instrumented_workload under `protonctl run`. Its profile buffers travel through the shim to
// the daemon, which must put every scope under the kernel's node with counts that follow from
// the launch (one "loop" per recording warp, one "load" and "compute" per 32 elements it
// handles), regions inside "loop" that take at most its cycles, and no decoding problem. Skips,
// saying so, where no CUDA device is usable.
#include <string>

#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

constexpr int kLaunches = 3;
constexpr int kBlocks = 264;
constexpr int kWarps = 4;
constexpr int kElements = 1 << 20;

// Runs two_regions compiled as `variant`, in which `recording_warps` warps of each CTA record.
void CheckScopes(const std::string& variant, int recording_warps) {
  const std::string dir = MakeTempDir();
  const std::string kernel = BinDir() + "/kernels/two_regions/" + variant;
  const Completed probe = RunToEnd({BinDir() + "/instrumented_workload", kernel, "1", "1"}, dir);
  // The workload links the CUDA driver: without it, it cannot even start.
  if (probe.exit_code == 2 || probe.err.find("libcuda") != std::string::npos) {
    GTEST_SKIP() << "no CUDA device: " << probe.err;
  }
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  Daemon daemon(dir);
  daemon.Start();

  const Completed run = RunToEnd({BinDir() + "/protonctl", "--socket", daemon.socket(), "run", "--",
                                  BinDir() + "/instrumented_workload", kernel,
                                  std::to_string(kLaunches), std::to_string(kBlocks)},
                                 dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  client::Client client(daemon.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  ASSERT_EQ(sessions->sessions_size(), 1);
  EXPECT_THAT(sessions->sessions(0).problems(), ::testing::IsEmpty());
  auto tree = client.GetTree(sessions->sessions(0).id());
  ASSERT_TRUE(tree.ok()) << tree.status();
  // A driver-API program: its devices are read at its first launch (tracing began in cuInit).
  ASSERT_EQ(tree->devices_size(), 1);
  EXPECT_GT(tree->devices(0).num_sms(), 0u);

  auto nodes = NodesByPath(*tree);
  ASSERT_TRUE(nodes.contains("instrumented/two_regions/loop")) << tree->DebugString();
  const v1::TreeNode& loop = nodes["instrumented/two_regions/loop"];
  const v1::TreeNode& load = nodes["instrumented/two_regions/loop/load"];
  const v1::TreeNode& compute = nodes["instrumented/two_regions/loop/compute"];
  EXPECT_EQ(loop.count(), uint64_t{kLaunches} * kBlocks * recording_warps);
  // A warp's lane 0 records one iteration for its warp's 32 elements.
  EXPECT_EQ(load.count(), uint64_t{kLaunches} * kElements / 32 * recording_warps / kWarps);
  EXPECT_EQ(compute.count(), load.count());
  const double loop_cycles = MetricValue(loop, "cycles");
  EXPECT_GT(MetricValue(load, "cycles"), 0);
  EXPECT_GT(MetricValue(compute, "cycles"), 0);
  EXPECT_LE(MetricValue(load, "cycles") + MetricValue(compute, "cycles"), loop_cycles);
  // normalized_cycles: cycles over every warp of every CTA of a launch, summed over launches.
  EXPECT_NEAR(MetricValue(loop, "normalized_cycles"), loop_cycles / (kBlocks * kWarps),
              loop_cycles * 1e-9);

  // CUPTI saw the same launches: they land on the same node.
  EXPECT_EQ(nodes["instrumented/two_regions"].count(), uint64_t{kLaunches});
}

TEST(InstrumentationGpuTest, ScopesOfEveryWarpLandUnderTheKernel) {
  CheckScopes("instrumented", kWarps);
}

// granularity=warp-group: warp 0 of each group of 4 records, and its ring takes all the data.
TEST(InstrumentationGpuTest, WarpGroupsRecordOnce) { CheckScopes("warpgroup", 1); }

}  // namespace
}  // namespace protond::testing
