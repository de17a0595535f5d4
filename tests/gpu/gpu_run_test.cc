// protonctl run on real CUDA work (ctest label gpu): sample_gpu_workload under the shim, its tree
// checked kernel by kernel and its devices listed. Skips, saying so, where no CUDA device is
// usable (fails there under PROTOND_REQUIRE_GPU=1: tests/gpu/gpu_required.h).
#include <cstdio>
#include <set>
#include <string>

#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/gpu/gpu_required.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kSteps = 5;  // as in sample/sample_gpu_workload.cu
constexpr int kReplays = 3;
constexpr double kBufferBytes = 4 << 20;

class GpuRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The workload alone, unprofiled: whether there is a GPU, and the checksum to compare with.
    reference_ = RunToEnd({BinDir() + "/sample_gpu_workload"}, dir_);
    if (reference_.exit_code == 2) PROTOND_SKIP_WITHOUT_GPU(reference_.err);
    ASSERT_EQ(reference_.exit_code, 0) << reference_.err;
    daemon_.Start();
  }

  Completed Run(const std::vector<std::string>& workload_args) {
    std::vector<std::string> argv = {BinDir() + "/protonctl",
                                     "--socket",
                                     daemon_.socket(),
                                     "run",
                                     "--name",
                                     "gpu",
                                     "--",
                                     BinDir() + "/sample_gpu_workload"};
    argv.insert(argv.end(), workload_args.begin(), workload_args.end());
    return RunToEnd(argv, dir_);
  }

  v1::Session OnlySession() {
    client::Client client(daemon_.socket());
    auto sessions = client.ListSessions();
    EXPECT_TRUE(sessions.ok()) << sessions.status();
    EXPECT_EQ(sessions->sessions_size(), 1);
    return sessions->sessions(0);
  }

  v1::Tree TreeOf(uint64_t session) {
    client::Client client(daemon_.socket());
    auto tree = client.GetTree(session);
    EXPECT_TRUE(tree.ok()) << tree.status();
    return *tree;
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
  Completed reference_;
};

TEST_F(GpuRunTest, EveryKernelCopyAndSetLandsUnderItsScope) {
  const Completed run = Run({});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, reference_.out) << "profiling changed the program's result";
  const v1::Session session = OnlySession();
  EXPECT_EQ(session.dropped_records(), 0u);
  EXPECT_TRUE(session.problems().empty()) << session.DebugString();
  const v1::Tree tree = TreeOf(session.id());
  auto nodes = NodesByPath(tree);

  const v1::TreeNode& h2d = nodes["setup/[CUDA memcpy Host-to-Device]"];
  EXPECT_EQ(h2d.count(), 2u) << tree.DebugString();
  EXPECT_EQ(MetricValue(h2d, "bytes"), 2 * kBufferBytes);
  EXPECT_EQ(nodes["setup/[CUDA memset]"].count(), 1u);
  EXPECT_EQ(MetricValue(nodes["setup/[CUDA memset]"], "bytes"), kBufferBytes);
  EXPECT_EQ(nodes["train/step/forward/scale"].count(), 2u * kSteps);
  EXPECT_EQ(nodes["train/step/backward/add"].count(), 1u * kSteps);
  // Two threads, each on its own stream, under the same scope name.
  EXPECT_EQ(nodes["worker/fill"].count(), 8u);
  // Captured under capture/build, replayed under replay; nothing ran during capture.
  EXPECT_EQ(nodes.count("capture/build/scale"), 0u);
  EXPECT_EQ(nodes["replay/<captured_at>/capture/build/scale"].count(), 1u * kReplays);
  EXPECT_EQ(nodes["replay/<captured_at>/capture/build/add"].count(), 1u * kReplays);
  const v1::TreeNode& d2h = nodes["teardown/[CUDA memcpy Device-to-Host]"];
  EXPECT_EQ(d2h.count(), 1u);
  EXPECT_EQ(MetricValue(d2h, "bytes"), kBufferBytes);
  // Nothing else reached the GPU, and nothing was put under ROOT for want of a launch.
  std::set<uint32_t> parents;
  for (const v1::TreeNode& node : tree.nodes()) parents.insert(node.parent_id());
  int gpu_leaves = 0;
  for (const auto& [path, node] : nodes) {
    if (MetricValue(node, "time (ns)") <= 0 || parents.count(node.id()) != 0) continue;
    gpu_leaves++;
    EXPECT_NE(path.find('/'), std::string::npos) << path << " is directly under ROOT";
  }
  EXPECT_EQ(gpu_leaves, 8);  // 2 copies, 1 set, scale and add twice, fill
  EXPECT_GT(MetricValue(nodes["train/step/forward/scale"], "time (ns)"), 0);
}

// What the tracer read of each device when tracing started (inside cuInit, through the injection)
// reaches the session; the values are the machine's, so only their plausibility is checked.
TEST_F(GpuRunTest, TheSessionListsTheDevicesOfItsProcess) {
  const Completed run = Run({});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const v1::Session session = OnlySession();
  EXPECT_TRUE(session.problems().empty()) << session.DebugString();  // no device query failed
  const v1::Tree tree = TreeOf(session.id());
  ASSERT_GE(tree.devices_size(), 1) << "no device info reached the session";
  std::set<uint32_t> device_ids;
  for (const v1::Device& device : tree.devices()) {
    SCOPED_TRACE(device.DebugString());
    EXPECT_EQ(device.pid(), session.processes(0).pid());
    EXPECT_TRUE(device_ids.insert(device.device_id()).second);
    EXPECT_FALSE(device.name().empty());
    EXPECT_GE(device.arch(), 70u);
    EXPECT_GT(device.num_sms(), 0u);
    EXPECT_GT(device.bus_width_bits(), 0u);
    EXPECT_GT(device.memory_bytes(), 0u);
  }

  const Completed devices = RunToEnd({BinDir() + "/protonctl", "--socket", daemon_.socket(),
                                      "devices", std::to_string(session.id())},
                                     dir_);
  ASSERT_EQ(devices.exit_code, 0) << devices.err;
  std::printf("%s", devices.out.c_str());  // the machine's values, for the log
  EXPECT_THAT(devices.out, HasSubstr("MEMORY (GiB)"));
  EXPECT_THAT(devices.out, HasSubstr(tree.devices(0).name()));
  EXPECT_THAT(devices.out, HasSubstr("sm_" + std::to_string(tree.devices(0).arch())));
}

TEST_F(GpuRunTest, CuptiHeldByAnotherToolIsReportedAndTheProgramRunsOn) {
  const Completed run = Run({"--hold-cupti"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, reference_.out);
  EXPECT_THAT(run.err, HasSubstr("CUPTI is held by"));
  const v1::Session session = OnlySession();
  ASSERT_EQ(session.problems_size(), 1) << session.DebugString();
  EXPECT_THAT(session.problems(0), HasSubstr("CUPTI is held by"));
  EXPECT_THAT(session.problems(0), HasSubstr("sample-holder"));
  // The CPU side is still recorded.
  auto nodes = NodesByPath(TreeOf(session.id()));
  EXPECT_EQ(nodes["train/step/forward"].count(), 1u * kSteps);
  EXPECT_EQ(nodes.count("train/step/forward/scale"), 0u);
}

}  // namespace
}  // namespace protond::testing
