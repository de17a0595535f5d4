// Intra-kernel instrumentation on real CUDA work (ctest label gpu): two_regions, compiled by
// mlir-instrument (tests/gpu/compile_kernels.sh) per warp and per warp group, launched by
// instrumented_workload under `protonctl run`. Its profile buffers travel through the shim to
// the daemon, which must put every scope under the kernel's node with counts that follow from
// the launch (one "loop" per recording warp, one "load" and "compute" per 32 elements it
// handles), regions inside "loop" that take at most its cycles, and no decoding problem. In a
// trace session every warp's intervals must be there, each inside its launch's CUPTI time, and
// the Chrome trace must show a lane per warp. Skips, saying so, where no CUDA device is usable
// (fails there under PROTOND_REQUIRE_GPU=1).
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/gpu/gpu_required.h"
#include "tests/integration/harness.h"
#include "view/export/chrome_trace.h"

namespace protond::testing {
namespace {

constexpr int kLaunches = 3;
constexpr int kBlocks = 264;
constexpr int kWarps = 4;
constexpr int kElements = 1 << 20;

// Whether the workload can run here: it links the CUDA driver, so without one it cannot start.
std::string WhyNoDevice(const std::string& kernel, const std::string& dir) {
  const Completed probe = RunToEnd({BinDir() + "/instrumented_workload", kernel, "1", "1"}, dir);
  if (probe.exit_code == 2 || probe.err.find("libcuda") != std::string::npos) return probe.err;
  EXPECT_EQ(probe.exit_code, 0) << probe.err;
  return "";
}

// Runs `kLaunches` launches of `kernel` under `protonctl run --data DATA`.
void Profile(const Daemon& daemon, const std::string& kernel, const std::string& data,
             const std::string& dir) {
  const Completed run = RunToEnd({BinDir() + "/protonctl", "--socket", daemon.socket(), "run",
                                  "--data", data, "--", BinDir() + "/instrumented_workload", kernel,
                                  std::to_string(kLaunches), std::to_string(kBlocks)},
                                 dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
}

// Runs two_regions compiled as `variant`, in which `recording_warps` warps of each CTA record.
void CheckScopes(const std::string& variant, int recording_warps) {
  const std::string dir = MakeTempDir();
  const std::string kernel = BinDir() + "/kernels/two_regions/" + variant;
  if (const std::string why = WhyNoDevice(kernel, dir); !why.empty()) {
    PROTOND_SKIP_WITHOUT_GPU(why);
  }
  Daemon daemon(dir);
  daemon.Start();
  Profile(daemon, kernel, "tree", dir);
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

// The intervals of each launch's buffer, in the order of the buffers.
std::map<uint64_t, std::vector<const v1::KernelScopeEvent*>> ByBuffer(const v1::Trace& trace) {
  std::map<uint64_t, std::vector<const v1::KernelScopeEvent*>> buffers;
  for (const v1::KernelScopeEvent& e : trace.kernel_scope_events())
    buffers[e.buffer()].push_back(&e);
  return buffers;
}

TEST(InstrumentationGpuTest, TheTraceShowsEveryWarpInsideItsLaunch) {
  const std::string dir = MakeTempDir();
  const std::string kernel = BinDir() + "/kernels/two_regions/instrumented";
  if (const std::string why = WhyNoDevice(kernel, dir); !why.empty()) {
    PROTOND_SKIP_WITHOUT_GPU(why);
  }
  Daemon daemon(dir);
  daemon.Start();
  Profile(daemon, kernel, "trace", dir);
  client::Client client(daemon.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  ASSERT_EQ(sessions->sessions_size(), 1);
  EXPECT_THAT(sessions->sessions(0).problems(), ::testing::IsEmpty());
  auto trace = client.GetTrace(sessions->sessions(0).id());
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_EQ(trace->unplaced_kernel_scope_events(), 0u);  // each buffer found its launch

  // One buffer per launch, each with every interval the tree counts: a loop per warp, a load and
  // a compute per 32 elements.
  std::vector<const v1::GpuEvent*> launches;
  for (const v1::GpuEvent& e : trace->gpu_events()) {
    if (e.kind() == v1::GpuEvent::KERNEL) launches.push_back(&e);
  }
  std::sort(launches.begin(), launches.end(),
            [](const auto* a, const auto* b) { return a->start_ns() < b->start_ns(); });
  const auto buffers = ByBuffer(*trace);
  ASSERT_EQ(launches.size(), size_t{kLaunches});
  ASSERT_EQ(buffers.size(), size_t{kLaunches});
  int64_t worst_early_ns = 0, worst_late_ns = 0;
  size_t launch = 0;
  for (const auto& [buffer, intervals] : buffers) {
    EXPECT_EQ(intervals.size(), size_t{kBlocks} * kWarps + 2 * size_t{kElements} / 32);
    std::set<std::pair<uint32_t, uint32_t>> warps;
    for (const v1::KernelScopeEvent* e : intervals) {
      warps.insert({e->block_id(), e->warp_id()});
      worst_early_ns = std::max(worst_early_ns, static_cast<int64_t>(launches[launch]->start_ns()) -
                                                    static_cast<int64_t>(e->start_ns()));
      worst_late_ns = std::max(worst_late_ns, static_cast<int64_t>(e->end_ns()) -
                                                  static_cast<int64_t>(launches[launch]->end_ns()));
    }
    EXPECT_EQ(warps.size(), size_t{kBlocks} * kWarps);
    ++launch;
  }
  // Each interval lies in its launch's CUPTI time. The earliest starts with the launch (that is
  // how a buffer is placed); the latest must end by the launch's end, which holds only if the SM
  // clock's rate measured from the blocks is right. 1 us of slack: CUPTI's kernel times are taken
  // by the GPU's front end, a block's records by its SM.
  std::printf("intervals outside their launch: at most %lld ns early, %lld ns late\n",
              static_cast<long long>(worst_early_ns), static_cast<long long>(worst_late_ns));
  EXPECT_LE(worst_early_ns, 1000);
  EXPECT_LE(worst_late_ns, 1000);
  const v1::KernelScopeEvent& first = trace->kernel_scope_events(0);
  std::printf("SM clock used: %.3f cycles/ns (device: %u kHz)\n",
              static_cast<double>(first.cycles()) / (first.end_ns() - first.start_ns()),
              client.GetTree(sessions->sessions(0).id())->devices(0).clock_rate_khz());

  // The Chrome trace: a process per SM, a lane per warp of each CTA that ran there.
  const nlohmann::json chrome = nlohmann::json::parse(view::RenderChromeTrace(*trace));
  std::set<std::string> lanes;
  size_t scopes = 0;
  for (const nlohmann::json& e : chrome["traceEvents"]) {
    if (e["name"] == "thread_name" && e["pid"] != 0) lanes.insert(e["args"]["name"]);
    if (e.contains("cat") && e["cat"] == "kernel_scope") ++scopes;
  }
  EXPECT_EQ(scopes, static_cast<size_t>(trace->kernel_scope_events_size()));
  EXPECT_EQ(lanes.size(), size_t{kBlocks} * kWarps);  // "CTA b warp w": a CTA's SM may change
}

}  // namespace
}  // namespace protond::testing
