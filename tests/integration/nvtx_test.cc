// NVTX ranges of an unmodified program become scopes under protonctl run, as in Proton
// (TRITON_ENABLE_NVTX): exact counts for every range, and TRITON_ENABLE_NVTX=0 turns them off.
#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

class NvtxTest : public ::testing::Test {
 protected:
  void SetUp() override { daemon_.Start(); }

  // `extra_pop` is what the workload's unbalanced pop returns: -1 from the shim, -2 from NVTX
  // with no tool attached.
  v1::Tree RunWorkload(const ChildOptions& options, int extra_pop) {
    const Completed run = RunToEnd({BinDir() + "/protonctl", "--socket", daemon_.socket(), "run",
                                    "--name", "nvtx", "--", BinDir() + "/nvtx_workload"},
                                   dir_, options);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_THAT(run.out, HasSubstr("extra pop returned " + std::to_string(extra_pop)));
    client::Client client(daemon_.socket());
    auto tree = client.GetTree(1);
    EXPECT_TRUE(tree.ok()) << tree.status();
    return tree.ok() ? *tree : v1::Tree();
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
};

std::vector<std::string> Paths(const v1::Tree& tree) {
  std::vector<std::string> paths;
  for (const auto& [path, node] : NodesByPath(tree)) paths.push_back(path);
  return paths;
}

TEST_F(NvtxTest, RangesBecomeScopes) {
  const v1::Tree tree = RunWorkload({}, -1);
  auto nodes = NodesByPath(tree);
  EXPECT_THAT(Paths(tree), UnorderedElementsAre("epoch", "epoch/step", "epoch/step/forward",
                                                "epoch/step/r\xc3\xbc"
                                                "ckw\xc3\xa4"
                                                "rts",
                                                "tail", "load"));
  EXPECT_EQ(nodes["epoch"].count(), 1u);
  EXPECT_EQ(nodes["epoch/step"].count(), 3u);
  EXPECT_EQ(nodes["epoch/step/forward"].count(), 3u);
  EXPECT_EQ(nodes["epoch/step/r\xc3\xbc"
                  "ckw\xc3\xa4"
                  "rts"]
                .count(),
            3u);
  EXPECT_EQ(nodes["tail"].count(), 1u);
  EXPECT_EQ(nodes["load"].count(), 4u);
  EXPECT_GE(nodes["epoch"].duration_ns_sum(), nodes["epoch/step"].duration_ns_sum());
}

TEST_F(NvtxTest, TritonEnableNvtxOffRecordsNoRanges) {
  ChildOptions options;
  options.env["TRITON_ENABLE_NVTX"] = "0";
  const v1::Tree tree = RunWorkload(options, -2);
  EXPECT_THAT(Paths(tree), ::testing::IsEmpty()) << tree.DebugString();
}

}  // namespace
}  // namespace protond::testing
