#include "view/export/flame_graph.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/testing/test_export_profiles.h"

namespace protond::view {
namespace {

using ::testing::ElementsAre;

TEST(FlameGraphTest, GpuTimeInNsByDefaultWithHiddenFramesDroppedAndNamesShort) {
  absl::StatusOr<FlameGraph> graph =
      BuildFlameGraph(testing::ExportTree(), "", KernelNames::kShort);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->metric, "time (ns)");
  EXPECT_THAT(graph->names, ElementsAre("ROOT", "train", "step", "matmul", "add_one", "add_one",
                                        "[CUDA memcpy Host-to-Device]"));
  graph = BuildFlameGraph(testing::ExportTree(), "", KernelNames::kFull);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->names[3], "matmul(int, int)");
  EXPECT_THAT(graph->total, ElementsAre(780, 750, 700, 600, 100, 50, 30));
  EXPECT_THAT(graph->self, ElementsAre(0, 0, 0, 600, 100, 50, 30));
}

TEST(FlameGraphTest, ChildrenAlwaysFitInTheirParent) {
  // step's 800 ns of CPU time fit in train's 1000; kernels have no CPU time.
  absl::StatusOr<FlameGraph> graph =
      BuildFlameGraph(testing::ExportTree(), "cpu_time/ns", KernelNames::kMangled);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->names[3], "_Z6matmulii");
  EXPECT_THAT(graph->total, ElementsAre(1000, 1000, 800, 0, 0, 0, 0));
  EXPECT_THAT(graph->self, ElementsAre(0, 200, 800, 0, 0, 0, 0));
  // A count is not summed into parents: a scope is at least as wide as its children.
  graph = BuildFlameGraph(testing::ExportTree(), "count", KernelNames::kShort);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_THAT(graph->total, ElementsAre(8, 7, 6, 4, 2, 1, 1));
  EXPECT_THAT(graph->self, ElementsAre(0, 0, 0, 4, 2, 1, 1));
}

TEST(FlameGraphTest, AnUnknownMetricListsTheAvailableOnes) {
  absl::StatusOr<FlameGraph> graph =
      BuildFlameGraph(testing::ExportTree(), "joules", KernelNames::kShort);
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(graph.status().message(), ::testing::HasSubstr("metric \"joules\" is not found"));
}

}  // namespace
}  // namespace protond::view
