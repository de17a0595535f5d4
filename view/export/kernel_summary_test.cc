#include "view/export/kernel_summary.h"

#include "gtest/gtest.h"
#include "view/testing/test_export_profiles.h"

namespace protond::view {
namespace {

constexpr char kHeader[] =
    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n";

TEST(KernelSummaryTest, ATreeGivesTotalsAndAveragesAndLeavesTheDistributionEmpty) {
  absl::StatusOr<std::string> csv =
      RenderKernelSummaryCsv(testing::ExportTree(), KernelNames::kFull);
  ASSERT_TRUE(csv.ok()) << csv.status();
  // add_one's two nodes are one row; the copy and the hidden kernel are left out. In full, the
  // name holds a comma, and is quoted.
  EXPECT_EQ(*csv, std::string(kHeader) +
                      "80.0,600,4,150.0,,,,,\"matmul(int, int)\"\n"
                      "20.0,150,3,50.0,,,,,add_one\n");
}

TEST(KernelSummaryTest, ATraceGivesEveryColumnFromTheLaunches) {
  const v1::Trace trace = testing::ExportTrace();
  absl::StatusOr<std::string> csv =
      RenderKernelSummaryCsv(testing::ExportTree(), KernelNames::kMangled, &trace);
  ASSERT_TRUE(csv.ok()) << csv.status();
  // matmul: 100 150 150 200, sample stddev sqrt(5000 / 3); add_one: 40 50 60, sqrt(200 / 2).
  EXPECT_EQ(*csv, std::string(kHeader) +
                      "80.0,600,4,150.0,150.0,100,200,40.8,_Z6matmulii\n"
                      "20.0,150,3,50.0,50.0,40,60,10.0,add_one\n");
}

TEST(KernelSummaryTest, QuotesInNamesAreDoubled) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddKernel(&tree, 1, 0, "say \"hi\"", 2, 10);
  absl::StatusOr<std::string> csv = RenderKernelSummaryCsv(tree, KernelNames::kShort);
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_EQ(*csv, std::string(kHeader) + "100.0,10,2,5.0,,,,,\"say \"\"hi\"\"\"\n");
}

}  // namespace
}  // namespace protond::view
