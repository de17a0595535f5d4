#include "shim/gpu/activity_converter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <string>

namespace protond::shim::gpu {
namespace {

using record::Kind;

// A host with its own context and kernel-name tables; the converter only interns and reads.
struct FakeHost {
  struct Context {
    uint32_t parent;
    std::string name;
    bool launch_frame = false;
  };
  std::deque<Context> contexts{{0, "ROOT"}};  // names stay put, as the host promises
  std::map<std::string, uint32_t> kernel_names;
  int intern_context_calls = 0;
  int intern_kernel_calls = 0;
  int launch_target_calls = 0;

  uint32_t Intern(uint32_t parent, const std::string& name) {
    for (uint32_t id = 1; id < contexts.size(); ++id) {
      if (contexts[id].parent == parent && contexts[id].name == name) return id;
    }
    contexts.push_back({parent, name});
    return static_cast<uint32_t>(contexts.size() - 1);
  }
  uint32_t LaunchFrame(uint32_t parent, const std::string& name) {
    contexts.push_back({parent, name, true});
    return static_cast<uint32_t>(contexts.size() - 1);
  }
  std::string Path(uint32_t id) const {
    std::string path;
    for (; id != 0; id = contexts[id].parent) path = "/" + contexts[id].name + path;
    return path.empty() ? "/" : path;
  }
};

FakeHost* g_host = nullptr;
extern const ProtondGpuHost kHost;

const ProtondGpuHost kHost = {
    /*current_context=*/[] { return 0u; },
    /*recording_set=*/[] { return 0u; },
    /*api_returned=*/[](int) {},
    /*launch_target=*/
    [](uint32_t context, uint32_t* kernel_name_id) {
      g_host->launch_target_calls++;
      const FakeHost::Context& entry = g_host->contexts[context];
      *kernel_name_id = entry.launch_frame ? kHost.intern_kernel_name(entry.name.c_str()) : 0;
      return entry.launch_frame ? entry.parent : context;
    },
    /*intern_context=*/
    [](uint32_t parent, const char* name) {
      g_host->intern_context_calls++;
      return g_host->Intern(parent, name);
    },
    /*context_name=*/
    [](uint32_t context, uint32_t* parent) {
      *parent = g_host->contexts[context].parent;
      return g_host->contexts[context].name.c_str();
    },
    /*intern_kernel_name=*/
    [](const char* name) {
      g_host->intern_kernel_calls++;
      return g_host->kernel_names.try_emplace(name, g_host->kernel_names.size() + 1).first->second;
    },
    /*intern_name=*/[](const char*, uint8_t) { return 0u; },
    /*write_activity=*/[](const record::GpuActivityRecord*, uint32_t) {},
    /*write_pc_sample=*/[](const record::PcSampleRecord*) {},
    /*write_notice=*/[](const char*) {},
    /*count_dropped=*/[](uint64_t) {},
    /*write_device_info=*/[](uint32_t, const record::DeviceInfoRecord*, const char*) {},
    /*write_cubin=*/[](uint64_t, const void*, size_t) {},
};

constexpr int64_t kOffsetNs = 1000;

class ActivityConverterTest : public ::testing::Test {
 protected:
  ActivityConverterTest() { g_host = &host_; }
  ~ActivityConverterTest() override { g_host = nullptr; }

  CUpti_ActivityKernel10 Kernel(uint32_t correlation_id, const char* name) {
    CUpti_ActivityKernel10 k;
    std::memset(&k, 0, sizeof(k));
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = 5000;
    k.end = 7500;
    k.correlationId = correlation_id;
    k.deviceId = 1;
    k.streamId = 7;
    k.gridX = 128;
    k.gridY = 2;
    k.gridZ = 1;
    k.blockX = 256;
    k.blockY = 1;
    k.blockZ = 1;
    k.name = name;
    return k;
  }

  std::optional<record::GpuActivityRecord> Convert(const void* activity) {
    return converter_.Convert(*static_cast<const CUpti_Activity*>(activity), &recording_set_);
  }

  FakeHost host_;
  CorrelationMap correlations_;
  GraphCaptures graphs_;
  ActivityConverter converter_{kHost, correlations_, graphs_, kOffsetNs};
  uint32_t recording_set_ = 0;  // of the last Convert
};

TEST_F(ActivityConverterTest, KernelLandsUnderTheLaunchingContext) {
  const uint32_t train = host_.Intern(0, "train");
  correlations_.Put(42, train, 5);
  const CUpti_ActivityKernel10 kernel = Kernel(42, "gemm");

  std::optional<record::GpuActivityRecord> out = Convert(&kernel);

  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->header.kind, static_cast<uint8_t>(Kind::kKernel));
  EXPECT_EQ(out->header.aux, train);
  EXPECT_EQ(out->start_ns, 6000u);
  EXPECT_EQ(out->end_ns, 8500u);
  EXPECT_EQ(out->name_id, host_.kernel_names.at("gemm"));
  EXPECT_EQ(out->correlation_id, 42u);
  EXPECT_EQ(out->device_id, 1u);
  EXPECT_EQ(out->stream_id, 7u);
  EXPECT_EQ(out->grid[0], 128u);
  EXPECT_EQ(out->grid[1], 2u);
  EXPECT_EQ(out->block[0], 256u);
  EXPECT_EQ(recording_set_, 5u);  // the sessions recording at the launch
  EXPECT_EQ(converter_.stats().launches_not_seen, 0u);
}

TEST_F(ActivityConverterTest, KernelNameIsInternedOncePerText) {
  char name[] = "first";
  CUpti_ActivityKernel10 kernel = Kernel(1, name);
  ASSERT_TRUE(Convert(&kernel));
  ASSERT_TRUE(Convert(&kernel));
  EXPECT_EQ(host_.intern_kernel_calls, 1);

  // The same pointer with new text (a module unloaded and its memory reused) is a new name.
  std::strcpy(name, "other");
  std::optional<record::GpuActivityRecord> out = Convert(&kernel);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->name_id, host_.kernel_names.at("other"));
  EXPECT_EQ(host_.intern_kernel_calls, 2);
}

TEST_F(ActivityConverterTest, UnseenLaunchGoesUnderRootAndIsCounted) {
  const CUpti_ActivityKernel10 kernel = Kernel(99, "k");
  std::optional<record::GpuActivityRecord> out = Convert(&kernel);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->header.aux, record::kRootContextId);
  EXPECT_EQ(recording_set_, kLaunchNotSeen);
  EXPECT_EQ(converter_.stats().launches_not_seen, 1u);
}

TEST_F(ActivityConverterTest, IncompleteRecordIsCountedNotConverted) {
  CUpti_ActivityKernel10 kernel = Kernel(1, "k");
  kernel.end = 0;
  EXPECT_FALSE(Convert(&kernel));
  EXPECT_EQ(converter_.stats().incomplete, 1u);
}

TEST_F(ActivityConverterTest, CopiesAndSetsCarryBytesAndKind) {
  CUpti_ActivityMemcpy6 copy;
  std::memset(&copy, 0, sizeof(copy));
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  copy.bytes = 4096;
  copy.start = 1;
  copy.end = 2;
  std::optional<record::GpuActivityRecord> out = Convert(&copy);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->header.kind, static_cast<uint8_t>(Kind::kMemcpy));
  EXPECT_EQ(out->header.flags, static_cast<uint8_t>(record::CopyKind::kDeviceToHost));
  EXPECT_EQ(out->bytes, 4096u);
  EXPECT_EQ(out->name_id, 0u);

  CUpti_ActivityMemcpyPtoP4 peer;
  std::memset(&peer, 0, sizeof(peer));
  peer.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  peer.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  peer.bytes = 8;
  peer.start = 1;
  peer.end = 2;
  out = Convert(&peer);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->header.flags, static_cast<uint8_t>(record::CopyKind::kPeerToPeer));

  CUpti_ActivityMemset4 set;
  std::memset(&set, 0, sizeof(set));
  set.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  set.bytes = 1 << 20;
  set.start = 1;
  set.end = 2;
  out = Convert(&set);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->header.kind, static_cast<uint8_t>(Kind::kMemset));
  EXPECT_EQ(out->bytes, 1u << 20);
}

TEST_F(ActivityConverterTest, OtherKindsAreSkipped) {
  CUpti_ActivityKernel10 other = Kernel(1, "k");
  other.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  EXPECT_FALSE(Convert(&other));
  EXPECT_EQ(converter_.stats().incomplete, 0u);
}

TEST_F(ActivityConverterTest, ReplayedKernelSitsUnderCapturedAtAndTheCaptureScopes) {
  const uint32_t build = host_.Intern(host_.Intern(0, "model"), "build_graph");
  const uint32_t step = host_.Intern(0, "step");
  graphs_.NodeCreated(/*node_id=*/10, build);
  graphs_.NodeCloned(/*node_id=*/11, /*original_id=*/10);  // instantiation
  correlations_.Put(5, step, 0);
  CUpti_ActivityKernel10 kernel = Kernel(5, "k");
  kernel.graphNodeId = 11;
  kernel.graphId = 3;

  std::optional<record::GpuActivityRecord> out = Convert(&kernel);

  ASSERT_TRUE(out);
  EXPECT_EQ(host_.Path(out->header.aux), "/step/<captured_at>/model/build_graph");
  EXPECT_EQ(out->graph_id, 3u);
  EXPECT_EQ(out->graph_node_id, 11u);
  const int interned = host_.intern_context_calls;
  ASSERT_TRUE(Convert(&kernel));
  EXPECT_EQ(host_.intern_context_calls, interned) << "the path is cached";
}

TEST_F(ActivityConverterTest, KernelFromALaunchFrameIsTheFrameUnderItsParent) {
  const uint32_t step = host_.Intern(0, "step");
  const uint32_t frame = host_.LaunchFrame(step, "matmul_128x128");
  correlations_.Put(8, frame, 0);
  const CUpti_ActivityKernel10 kernel = Kernel(8, "matmul_kernel");

  std::optional<record::GpuActivityRecord> out = Convert(&kernel);

  ASSERT_TRUE(out);
  EXPECT_EQ(out->header.aux, step);
  EXPECT_EQ(out->name_id, host_.kernel_names.at("matmul_128x128"));
  EXPECT_EQ(host_.kernel_names.count("matmul_kernel"), 0u) << "the driver's name is not used";
  ASSERT_TRUE(Convert(&kernel));
  EXPECT_EQ(host_.launch_target_calls, 1) << "a context's target is asked once";
}

TEST_F(ActivityConverterTest, CopyFromALaunchFrameGoesUnderItsParent) {
  const uint32_t step = host_.Intern(0, "step");
  correlations_.Put(9, host_.LaunchFrame(step, "k"), 0);
  CUpti_ActivityMemcpy6 copy;
  std::memset(&copy, 0, sizeof(copy));
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.correlationId = 9;
  copy.start = 1;
  copy.end = 2;

  std::optional<record::GpuActivityRecord> out = Convert(&copy);

  ASSERT_TRUE(out);
  EXPECT_EQ(out->header.aux, step);
  EXPECT_EQ(out->name_id, 0u);
}

TEST_F(ActivityConverterTest, ReplayedKernelCapturedInALaunchFrameTakesItsName) {
  const uint32_t build = host_.Intern(0, "build_graph");
  graphs_.NodeCreated(/*node_id=*/10, host_.LaunchFrame(build, "renamed"));
  correlations_.Put(5, host_.Intern(0, "step"), 0);
  CUpti_ActivityKernel10 kernel = Kernel(5, "k");
  kernel.graphNodeId = 10;

  std::optional<record::GpuActivityRecord> out = Convert(&kernel);

  ASSERT_TRUE(out);
  EXPECT_EQ(host_.Path(out->header.aux), "/step/<captured_at>/build_graph");
  EXPECT_EQ(out->name_id, host_.kernel_names.at("renamed"));
}

TEST_F(ActivityConverterTest, GraphCapturedBeforeTracingStaysUnderTheLaunchScope) {
  const uint32_t step = host_.Intern(0, "step");
  correlations_.Put(5, step, 0);
  CUpti_ActivityKernel10 kernel = Kernel(5, "k");
  kernel.graphNodeId = 77;
  std::optional<record::GpuActivityRecord> out = Convert(&kernel);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->header.aux, step);
  EXPECT_EQ(converter_.stats().captures_not_seen, 1u);
}

TEST(GraphCapturesTest, DestroyedNodesAreForgottenOnlyOnceRetired) {
  GraphCaptures graphs;
  graphs.NodeCreated(1, 4);
  graphs.NodeCreated(2, 5);  // instantiation creates the clone, then says what it cloned
  graphs.NodeCloned(2, 1);
  graphs.NodeCloned(3, /*original_id=*/99);  // an original never seen
  EXPECT_EQ(graphs.CaptureContext(2), 4u);
  EXPECT_FALSE(graphs.CaptureContext(3));

  graphs.NodeDestroyed(1, /*now_ns=*/100);
  graphs.NodeDestroyed(2, /*now_ns=*/200);
  // Records of replays may still arrive after the program destroyed the graph.
  EXPECT_EQ(graphs.CaptureContext(1), 4u);
  graphs.ForgetRetired(/*before_ns=*/150);
  EXPECT_FALSE(graphs.CaptureContext(1));
  EXPECT_EQ(graphs.CaptureContext(2), 4u);
  graphs.ForgetRetired(/*before_ns=*/201);
  EXPECT_FALSE(graphs.CaptureContext(2));
}

TEST(CorrelationMapTest, AnOverwrittenSlotIsAMissNotAWrongContext) {
  CorrelationMap map;
  ASSERT_TRUE(map.ok());
  EXPECT_FALSE(map.Find(7));  // never put
  map.Put(7, 3, 0x12345);
  ASSERT_TRUE(map.Find(7));
  EXPECT_EQ(map.Find(7)->context_id, 3u);
  EXPECT_EQ(map.Find(7)->recording_set, 0x2345u);  // the low 16 bits
  const uint32_t high_id = 0xfff00007;             // the same slot, every id bit above it set
  map.Put(high_id, UINT32_MAX - 1, 0xffff);
  EXPECT_FALSE(map.Find(7));
  ASSERT_TRUE(map.Find(high_id));
  EXPECT_EQ(map.Find(high_id)->context_id, UINT32_MAX - 1);
  EXPECT_EQ(map.Find(high_id)->recording_set, 0xffffu);
  EXPECT_FALSE(map.Find(0));
}

}  // namespace
}  // namespace protond::shim::gpu
