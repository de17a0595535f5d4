#include "view/jobs/collective_tree.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>

#include "view/render/metric_spec.h"
#include "view/render/metric_values.h"
#include "view/render/tree_shape.h"
#include "view/testing/test_trees.h"
#include "view/tree/profile_view.h"

namespace protond::view {
namespace {

using testing::AddInt;
using testing::AddNode;

constexpr int64_t kMs = 1'000'000;
constexpr uint64_t kFloats = 1'000'000;  // 4 MB of f32 a call

// ROOT -> train -> step (2 instances) -> the NCCL kernel (2 launches, 22 ms) and a matmul (5 ms).
v1::Tree TrainingTree() {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT");
  AddNode(&tree, 1, 0, "train", 1)->set_duration_ns_sum(100 * kMs);
  AddNode(&tree, 2, 1, "step", 2)->set_duration_ns_sum(60 * kMs);
  AddInt(AddNode(&tree, 3, 2, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2), kGpuTimeMetric,
         v1::Metric::INCLUSIVE, 22 * kMs);
  AddInt(AddNode(&tree, 4, 2, "matmul", 2), kGpuTimeMetric, v1::Metric::INCLUSIVE, 5 * kMs);
  return tree;
}

// One all_reduce call of `rank` (pid 100 + rank) of 2, its kernel from `gpu_start_ns` to
// `gpu_end_ns` (no kernel when both are 0).
v1::CollectiveEvent* AddCall(v1::Collectives& calls, uint32_t rank, uint64_t seq,
                             int64_t gpu_start_ns, int64_t gpu_end_ns,
                             const std::string& scope = "train/step") {
  v1::CollectiveEvent* call = calls.add_events();
  call->set_pid(100 + rank);
  call->set_rank(rank);
  call->set_nranks(2);
  call->set_comm_hash(0xc0ffee);
  call->set_seq(seq);
  call->set_count(kFloats);
  call->set_op("AllReduce");
  call->set_datatype("ncclFloat32");
  call->set_algorithm("RING");
  call->set_protocol("LL");
  call->set_start_ns(gpu_start_ns > 0 ? gpu_start_ns - kMs / 10 : 1000);
  call->set_end_ns(gpu_start_ns > 0 ? gpu_start_ns : 1000 + kMs);
  call->set_scope_path(scope);
  if (gpu_end_ns > 0) {
    call->mutable_kernel()->set_start_ns(gpu_start_ns);
    call->mutable_kernel()->set_end_ns(gpu_end_ns);
  }
  return call;
}

// Two calls on both ranks; rank 1's GPU arrives 10 ms after rank 0's, and both end 1 ms later.
v1::Collectives RankOneLate() {
  v1::Collectives calls;
  for (uint64_t seq = 0; seq < 2; ++seq) {
    const int64_t start = (100 + 50 * static_cast<int64_t>(seq)) * kMs;
    AddCall(calls, 0, seq, start, start + 11 * kMs);
    AddCall(calls, 1, seq, start + 10 * kMs, start + 11 * kMs);
  }
  return calls;
}

const v1::Metric* FindMetric(const v1::TreeNode& node, const std::string& name) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() == name) return &metric;
  }
  return nullptr;
}

int64_t IntMetric(const v1::TreeNode& node, const std::string& name) {
  const v1::Metric* metric = FindMetric(node, name);
  EXPECT_NE(metric, nullptr) << name;
  return metric != nullptr ? metric->int_value() : -1;
}

constexpr char kKind[] = "all_reduce [nccl, 2 ranks, RING/LL]";

TEST(CollectiveTreeTest, TheWaitLandsOnTheEarlyRanksNodeUnderItsScope) {
  absl::StatusOr<v1::Tree> rank0 =
      AddCollectiveNodes(TrainingTree(), RankOneLate(), std::set<int64_t>{100});
  ASSERT_TRUE(rank0.ok()) << rank0.status();
  ASSERT_EQ(rank0->nodes_size(), 6);
  const v1::TreeNode& node = rank0->nodes(5);
  EXPECT_EQ(node.name(), kKind);
  EXPECT_EQ(node.id(), 5u);
  EXPECT_EQ(node.parent_id(), 2u);  // step
  EXPECT_EQ(node.count(), 0u);
  EXPECT_EQ(IntMetric(node, kNcclCallsMetric), 2);
  EXPECT_EQ(IntMetric(node, kNcclBytesMetric), 8'000'000);
  EXPECT_EQ(IntMetric(node, kNcclTimeMetric), 22 * kMs);  // its kernels' GPU time
  EXPECT_EQ(IntMetric(node, kNcclWaitMetric), 20 * kMs);
  // 4 MB moved in the 1 ms after the last arrival, a factor of 1 for two ranks.
  const v1::Metric* bus_bw = FindMetric(node, kNcclBusBandwidthMetric);
  ASSERT_NE(bus_bw, nullptr);
  EXPECT_DOUBLE_EQ(bus_bw->double_value(), 4.0);
  EXPECT_EQ(bus_bw->aggregation(), v1::Metric::PROPERTY);
  EXPECT_TRUE(rank0->notes().empty());

  absl::StatusOr<v1::Tree> rank1 =
      AddCollectiveNodes(TrainingTree(), RankOneLate(), std::set<int64_t>{101});
  ASSERT_TRUE(rank1.ok()) << rank1.status();
  ASSERT_EQ(rank1->nodes_size(), 6);
  EXPECT_EQ(IntMetric(rank1->nodes(5), kNcclWaitMetric), 0);
  EXPECT_EQ(IntMetric(rank1->nodes(5), kNcclTimeMetric), 2 * kMs);
}

TEST(CollectiveTreeTest, BothRanksOfASessionAddUp) {
  absl::StatusOr<v1::Tree> both = AddCollectiveNodes(TrainingTree(), RankOneLate(), std::nullopt);
  ASSERT_TRUE(both.ok()) << both.status();
  ASSERT_EQ(both->nodes_size(), 6);
  EXPECT_EQ(IntMetric(both->nodes(5), kNcclCallsMetric), 4);
  EXPECT_EQ(IntMetric(both->nodes(5), kNcclWaitMetric), 20 * kMs);
  EXPECT_EQ(IntMetric(both->nodes(5), kNcclTimeMetric), 24 * kMs);
}

// A session's tree of one RANK shows the calls of that rank's processes.
TEST(CollectiveTreeTest, ASessionsRankShowsItsProcessesCalls) {
  v1::Session session;
  for (uint32_t rank = 0; rank < 2; ++rank) {
    v1::SessionProcess* process = session.add_processes();
    process->set_pid(100 + rank);
    process->mutable_job()->set_rank(std::to_string(rank));
  }
  absl::StatusOr<v1::Tree> rank1 =
      AddSessionCollectiveNodes(session, "1", TrainingTree(), RankOneLate());
  ASSERT_TRUE(rank1.ok()) << rank1.status();
  ASSERT_EQ(rank1->nodes_size(), 6);
  EXPECT_EQ(IntMetric(rank1->nodes(5), kNcclCallsMetric), 2);
  EXPECT_EQ(IntMetric(rank1->nodes(5), kNcclWaitMetric), 0);
  absl::StatusOr<v1::Tree> all =
      AddSessionCollectiveNodes(session, "", TrainingTree(), RankOneLate());
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->nodes_size(), 6);
  EXPECT_EQ(IntMetric(all->nodes(5), kNcclCallsMetric), 4);
}

// Every value the tree had, inclusive or not, is the same with the calls' nodes added.
TEST(CollectiveTreeTest, NoValueOfTheTreeChanges) {
  const v1::Tree before = TrainingTree();
  absl::StatusOr<v1::Tree> after = AddCollectiveNodes(before, RankOneLate(), std::nullopt);
  ASSERT_TRUE(after.ok()) << after.status();
  absl::StatusOr<TreeShape> before_shape = CheckTreeShape(before);
  absl::StatusOr<TreeShape> after_shape = CheckTreeShape(*after);
  ASSERT_TRUE(before_shape.ok() && after_shape.ok());
  for (const char* spec : {"time/ns", "cpu_time/ns", "count", "avg_time/ns"}) {
    absl::StatusOr<std::vector<MetricColumn>> columns = ParseMetricSpec(spec, before);
    ASSERT_TRUE(columns.ok()) << columns.status();
    const std::vector<MetricValue> old_values =
        ComputeColumn(before, *before_shape, columns->front());
    const std::vector<MetricValue> new_values =
        ComputeColumn(*after, *after_shape, columns->front());
    for (int i = 0; i < before.nodes_size(); ++i) {
      EXPECT_EQ(new_values[i].Format(), old_values[i].Format()) << spec << " at node " << i;
    }
  }
}

TEST(CollectiveTreeTest, ASessionWithoutCallsIsShownAsBefore) {
  const v1::Tree before = TrainingTree();
  absl::StatusOr<v1::Tree> after = AddCollectiveNodes(before, v1::Collectives(), std::nullopt);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*after, before));
}

// The calls' nodes show with -m and keep -d: at depth 3 they are below what is printed.
TEST(CollectiveTreeTest, RendersWithTheMetricsAndTheDepthAsked) {
  absl::StatusOr<v1::Tree> tree =
      AddCollectiveNodes(TrainingTree(), RankOneLate(), std::set<int64_t>{100});
  ASSERT_TRUE(tree.ok()) << tree.status();
  ViewOptions options;
  options.metrics = "time/ms,nccl_calls,nccl_wait";
  absl::StatusOr<std::string> text = RenderProfile(*tree, options);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(
      *text,
      "time (ms)  nccl_calls  nccl_wait (ns)\n"
      "   27.000                              ROOT\n"
      "   27.000                              └─ train\n"
      "   27.000                                 └─ step\n"
      "   22.000                                    ├─ ncclDevKernel_AllReduce_Sum_f32_RING_LL\n"
      "    5.000                                    ├─ matmul\n"
      "                    2        20000000        └─ all_reduce [nccl, 2 ranks, RING/LL]\n");
  options.depth = 3;
  text = RenderProfile(*tree, options);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->find("all_reduce"), std::string::npos) << *text;
}

TEST(CollectiveTreeTest, AScopeNotInTheTreeGoesUnderRootWithANote) {
  v1::Collectives calls;
  AddCall(calls, 0, 0, 100 * kMs, 101 * kMs, "train/gone");
  AddCall(calls, 0, 1, 200 * kMs, 201 * kMs, "");
  absl::StatusOr<v1::Tree> tree = AddCollectiveNodes(TrainingTree(), calls, std::nullopt);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes_size(), 6);
  EXPECT_EQ(tree->nodes(5).parent_id(), 0u);
  EXPECT_EQ(IntMetric(tree->nodes(5), kNcclCallsMetric), 2);
  // Rank 1 never reported: no wait is known.
  EXPECT_EQ(FindMetric(tree->nodes(5), kNcclWaitMetric), nullptr);
  ASSERT_EQ(tree->notes_size(), 1);
  EXPECT_EQ(tree->notes(0),
            "1 NCCL collective calls name a scope that is not in the tree ('train/gone'): shown "
            "under ROOT");
}

// Without its kernel a call is timed on the host, and the note says how many were.
TEST(CollectiveTreeTest, HostTimesAreSaid) {
  v1::Collectives calls;
  AddCall(calls, 0, 0, 0, 0);
  AddCall(calls, 0, 1, 100 * kMs, 103 * kMs);
  absl::StatusOr<v1::Tree> tree = AddCollectiveNodes(TrainingTree(), calls, std::nullopt);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes_size(), 6);
  EXPECT_EQ(IntMetric(tree->nodes(5), kNcclTimeMetric), kMs + 3 * kMs);
  ASSERT_EQ(tree->notes_size(), 1);
  EXPECT_EQ(tree->notes(0),
            "nccl_time (ns): 1 of 2 NCCL collective calls timed on the host (their kernel is not "
            "known), the others by their kernel on the GPU");

  calls.mutable_events(1)->clear_kernel();
  tree = AddCollectiveNodes(TrainingTree(), calls, std::nullopt);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->notes_size(), 1);
  EXPECT_EQ(tree->notes(0),
            "nccl_time (ns): the host's time of all 2 NCCL collective calls (their kernels are "
            "not known)");
  // Only rank 1's calls shown, and it made none: the tree is as it was.
  tree = AddCollectiveNodes(TrainingTree(), calls, std::set<int64_t>{101});
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->nodes_size(), 5);
  EXPECT_EQ(tree->notes_size(), 0);
}

TEST(CollectiveTreeTest, KindsAreSplitByOpAndSizeAndMixedAlgorithmsUnnamed) {
  v1::Collectives calls;
  AddCall(calls, 0, 0, 100 * kMs, 101 * kMs);
  AddCall(calls, 0, 1, 200 * kMs, 201 * kMs)->set_algorithm("TREE");
  v1::CollectiveEvent* broadcast = AddCall(calls, 0, 0, 300 * kMs, 301 * kMs);
  broadcast->set_op("Broadcast");
  broadcast->set_comm_hash(7);
  broadcast->set_nranks(4);
  absl::StatusOr<v1::Tree> tree = AddCollectiveNodes(TrainingTree(), calls, std::nullopt);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes_size(), 7);
  EXPECT_EQ(tree->nodes(5).name(), "all_reduce [nccl, 2 ranks]");
  EXPECT_EQ(tree->nodes(6).name(), "broadcast [nccl, 4 ranks, RING/LL]");
}

// Hostile calls (validation refuses them) are left out and counted; a hostile tree is refused.
TEST(CollectiveTreeTest, HostileInputIsLeftOutOrRefused) {
  v1::Collectives calls;
  AddCall(calls, 0, 0, 100 * kMs, 101 * kMs)->set_nranks(0);
  AddCall(calls, 5, 1, 100 * kMs, 101 * kMs);  // rank 5 of 2
  AddCall(calls, 0, 2, 100 * kMs, 101 * kMs)->set_op("AllReduce; DROP TABLE");
  absl::StatusOr<v1::Tree> tree = AddCollectiveNodes(TrainingTree(), calls, std::nullopt);
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->nodes_size(), 5);
  ASSERT_EQ(tree->notes_size(), 1);
  EXPECT_EQ(tree->notes(0), "3 NCCL collective calls left out as invalid: protonctl job says why");

  v1::Tree loop = TrainingTree();
  loop.mutable_nodes(1)->set_parent_id(2);  // train under step, which is under train
  EXPECT_EQ(AddCollectiveNodes(loop, RankOneLate(), std::nullopt).status().code(),
            absl::StatusCode::kInvalidArgument);

  v1::Tree last_id = TrainingTree();
  last_id.mutable_nodes(4)->set_id(UINT32_MAX);
  EXPECT_EQ(AddCollectiveNodes(last_id, RankOneLate(), std::nullopt).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace protond::view
