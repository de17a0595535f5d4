#include "view/render/tree_view.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/testing/small_stack.h"
#include "common/tree/tree_depth.h"
#include "gtest/gtest.h"
#include "view/render/colour_bands.h"
#include "view/testing/test_trees.h"

namespace protond::view {
namespace {

using testing::AddDouble;
using testing::AddInt;

v1::TreeNode* AddNode(v1::Tree* tree, uint32_t id, uint32_t parent_id, const std::string& name,
                      uint64_t count, uint64_t sum_ns, uint64_t min_ns, uint64_t max_ns) {
  v1::TreeNode* node = testing::AddNode(tree, id, parent_id, name, count);
  node->set_duration_ns_sum(sum_ns);
  node->set_duration_ns_min(min_ns);
  node->set_duration_ns_max(max_ns);
  return node;
}

// ROOT -> compute -> {matmul, reduce}; ROOT -> io. Ids differ from positions on purpose.
v1::Tree SampleTree() {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT", 0, 0, 0, 0);
  v1::TreeNode* compute = AddNode(&tree, 10, 0, "compute", 4, 100'250'000, 20'000'000, 30'000'000);
  AddInt(compute, "tile", v1::Metric::PROPERTY, 64);
  v1::TreeNode* matmul = AddNode(&tree, 11, 10, "matmul", 40, 60'100'000, 1'000'000, 2'500'000);
  AddInt(matmul, "flops", v1::Metric::INCLUSIVE, 600);
  AddDouble(matmul, "bytes", 1.5);
  AddInt(matmul, "tile", v1::Metric::PROPERTY, 128);
  AddInt(matmul, "cpu_time (ns)", v1::Metric::EXCLUSIVE, 5000);
  v1::TreeNode* reduce = AddNode(&tree, 12, 10, "reduce", 40, 40'000'000, 500'000, 1'500'000);
  AddInt(reduce, "flops", v1::Metric::INCLUSIVE, 400);
  AddInt(reduce, "cpu_time (ns)", v1::Metric::EXCLUSIVE, 7000);
  v1::TreeNode* io = AddNode(&tree, 20, 0, "io", 1, 20'000'000, 20'000'000, 20'000'000);
  AddDouble(io, "bytes", 2.25);
  return tree;
}

std::string Render(const v1::Tree& tree, const std::string& spec, int depth = kDefaultTreeDepth) {
  absl::StatusOr<std::vector<MetricColumn>> columns = ParseMetricSpec(spec, tree);
  EXPECT_TRUE(columns.ok()) << columns.status();
  absl::StatusOr<std::string> text = RenderTree(tree, *columns, depth);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : text.status().ToString();
}

TEST(TreeViewTest, DefaultIsInclusiveCpuTimeInMilliseconds) {
  EXPECT_EQ(Render(SampleTree(), ""),
            "cpu_time (ms)\n"
            "      120.250  ROOT\n"
            "      100.250  ├─ compute\n"
            "       60.100  │  ├─ matmul\n"
            "       40.000  │  └─ reduce\n"
            "       20.000  └─ io\n");
}

// flops and bytes sum into every ancestor (an int and a float sum), tile (a property) and
// cpu_time (ns) (exclusive) stay on their own node.
TEST(TreeViewTest, SeveralMetricsWithEachAggregation) {
  EXPECT_EQ(Render(SampleTree(), "count,avg_cpu_time/us,flops,bytes,tile,cpu_time (ns)"),
            "count  avg_cpu_time (us)  flops  bytes  tile  cpu_time (ns)\n"
            "    5          24050.000   1000  3.750                       ROOT\n"
            "    4          25062.500   1000  1.500    64                 ├─ compute\n"
            "   40           1502.500    600  1.500   128           5000  │  ├─ matmul\n"
            "   40           1000.000    400                        7000  │  └─ reduce\n"
            "    1          20000.000         2.250                       └─ io\n");
}

// Kernels carry Proton's "time (ns)"; time/<unit> sums it into every ancestor and converts it.
TEST(TreeViewTest, GpuTimeIsSummedIntoScopesAndConverted) {
  v1::Tree tree = SampleTree();
  AddInt(AddNode(&tree, 13, 11, "gemm_kernel", 40, 0, 0, 0), "time (ns)", v1::Metric::INCLUSIVE,
         1'500'000);
  AddInt(AddNode(&tree, 21, 20, "[CUDA memcpy Host-to-Device]", 1, 0, 0, 0), "time (ns)",
         v1::Metric::INCLUSIVE, 250'000);
  EXPECT_EQ(Render(tree, "time/ms,count"),
            "time (ms)  count\n"
            "    1.750      5  ROOT\n"
            "    1.500      4  ├─ compute\n"
            "    1.500     40  │  ├─ matmul\n"
            "    1.500     40  │  │  └─ gemm_kernel\n"
            "              40  │  └─ reduce\n"
            "    0.250      1  └─ io\n"
            "    0.250      1     └─ [CUDA memcpy Host-to-Device]\n");
}

TEST(TreeViewTest, DepthLimitsTheLevelsShown) {
  EXPECT_EQ(Render(SampleTree(), "count,min_cpu_time/ms,max_cpu_time/ms", 2),
            "count  min_cpu_time (ms)  max_cpu_time (ms)\n"
            "    5             20.000             30.000  ROOT\n"
            "    4             20.000             30.000  ├─ compute\n"
            "    1             20.000             20.000  └─ io\n");
  EXPECT_EQ(Render(SampleTree(), "count", 1), "count\n    5  ROOT\n");
}

TEST(TreeViewTest, HiddenNodesDoNotWidenColumns) {
  v1::Tree tree = SampleTree();
  AddInt(tree.mutable_nodes(2), "x", v1::Metric::EXCLUSIVE, 123456);
  EXPECT_EQ(Render(tree, "x", 2),
            "x\n"
            "   ROOT\n"
            "   ├─ compute\n"
            "   └─ io\n");
}

TEST(TreeViewTest, NodeWithoutCompletedInstancesShowsNoTime) {
  v1::Tree tree;
  AddNode(&tree, 0, 0, "ROOT", 0, 0, 0, 0);
  AddNode(&tree, 1, 0, "kernel", 0, 0, 0, 0);
  EXPECT_EQ(Render(tree, "count,cpu_time/us"),
            "count  cpu_time (us)\n"
            "    0                 ROOT\n"
            "    0                 └─ kernel\n");
}

// For a terminal: each value coloured by its band between io's 20 and ROOT's 120.25, the padding
// outside the colour so the columns still line up, and the legend under the tree.
TEST(TreeViewTest, ColourMarksTheFirstMetricsBandsAndAddsALegend) {
  const v1::Tree tree = SampleTree();
  const absl::StatusOr<TreeShape> shape = CheckTreeShape(tree);
  ASSERT_TRUE(shape.ok());
  const absl::StatusOr<std::vector<MetricColumn>> columns = ParseMetricSpec("", tree);
  ASSERT_TRUE(columns.ok());
  const std::vector<std::vector<MetricValue>> values = {ComputeColumn(tree, *shape, (*columns)[0])};
  const std::string end = "\033[0m";
  EXPECT_EQ(RenderTreeValues(tree, *shape, *columns, values, kDefaultTreeDepth, /*colour=*/true),
            absl::StrCat("cpu_time (ms)\n",                                      //
                         "      \033[38;5;196m120.250", end, "  ROOT\n",         //
                         "      \033[38;5;208m100.250", end, "  ├─ compute\n",   //
                         "       \033[38;5;46m60.100", end, "  │  ├─ matmul\n",  //
                         "       \033[38;5;34m40.000", end, "  │  └─ reduce\n",  //
                         "       \033[38;5;22m20.000", end, "  └─ io\n",         //
                         RenderLegend("cpu_time (ms)", ColourBands{20, 120.25})));
}

TEST(TreeViewTest, EmptyTreePrintsTheHeaderAlone) {
  EXPECT_EQ(Render(v1::Tree(), ""), "cpu_time (ms)\n");
}

TEST(TreeViewTest, ParentThatDoesNotPrecedeItsChildIsAnError) {
  v1::Tree tree = SampleTree();
  tree.mutable_nodes(3)->set_parent_id(99);
  absl::StatusOr<std::string> text = RenderTree(tree, {});
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(text.status().message(),
            "tree node 12 (reduce) names parent 99, which does not precede it");

  tree = SampleTree();
  tree.mutable_nodes(1)->set_parent_id(10);  // itself
  EXPECT_EQ(RenderTree(tree, {}).status().message(),
            "tree node 10 (compute) names parent 10, which does not precede it");
}

TEST(TreeViewTest, DuplicateIdIsAnError) {
  v1::Tree tree = SampleTree();
  tree.mutable_nodes(4)->set_id(11);
  EXPECT_EQ(RenderTree(tree, {}).status().message(), "tree node id 11 appears more than once");
}

// Before (issue 27): a node was a level of recursion, on protonctl's stack and, for a view that
// protond renders, on a thread of the daemon. A tree as deep as the limit, with a branch at the
// bottom, on a stack far too small for that: the glyphs carry each rail down to the last level.
TEST(TreeViewTest, ATreeAsDeepAsTheLimitPrintsWithoutRecursion) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  for (int i = 1; i < kMaxTreeDepth; ++i) testing::AddNode(&tree, i, i - 1, "s", 1);
  testing::AddNode(&tree, kMaxTreeDepth, kMaxTreeDepth - 1, "a", 1);
  testing::AddNode(&tree, kMaxTreeDepth + 1, kMaxTreeDepth - 2, "b", 1);
  std::string text;
  ASSERT_TRUE(testing::RunOnSmallStack([&] { text = Render(tree, "count", kMaxTreeDepth + 1); }));
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  ASSERT_EQ(lines.size(), kMaxTreeDepth + 4u);  // the header, the nodes, "" after the last
  // The rails of the levels between ROOT and the last "s".
  std::string rails;
  for (int i = 2; i < kMaxTreeDepth; ++i) rails += "   ";
  EXPECT_EQ(lines[kMaxTreeDepth], absl::StrCat("    1  ", rails, "├─ s"));
  EXPECT_EQ(lines[kMaxTreeDepth + 1], absl::StrCat("    1  ", rails, "│  └─ a"));
  EXPECT_EQ(lines[kMaxTreeDepth + 2], absl::StrCat("    1  ", rails, "└─ b"));
}

}  // namespace
}  // namespace protond::view
