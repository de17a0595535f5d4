// PC sampling on real CUDA work (ctest label gpu): stall_workload, compiled with line
// information, under `protonctl run --mode pcsampling`. Its memory-bound kernel must show
// memory-dependency stalls on the line of its load, its arithmetic kernel must not, each under
// its own scope and kernel although they ran concurrently, and every line's counts must add up.
// Skips, saying so, where no CUDA device is usable (fails there under PROTOND_REQUIRE_GPU=1).
#include <cstdio>
#include <map>
#include <string>

#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/gpu/gpu_required.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A kernel's sampled lines, by name ("/dir/stall_workload.cu:41@chase").
using Lines = std::map<std::string, v1::TreeNode>;

// The children of the node at `path` (scope names, then the kernel's).
Lines LinesUnder(const v1::Tree& tree, const std::vector<std::string>& path) {
  uint32_t parent = 0;
  for (const std::string& name : path) {
    uint32_t found = UINT32_MAX;
    for (const v1::TreeNode& node : tree.nodes()) {
      if (node.parent_id() == parent && node.id() != 0 && node.name() == name) found = node.id();
    }
    if (found == UINT32_MAX) return {};
    parent = found;
  }
  Lines lines;
  for (const v1::TreeNode& node : tree.nodes()) {
    if (node.parent_id() == parent && node.id() != 0) lines[node.name()] = node;
  }
  return lines;
}

// The stall reason with the most samples at `line`.
std::string TopReason(const v1::TreeNode& line) {
  std::string top;
  double most = 0;
  for (const v1::Metric& metric : line.metrics()) {
    if (metric.name().starts_with("stalled_") && metric.int_value() > most) {
      most = metric.int_value();
      top = metric.name();
    }
  }
  return top;
}

class PcSamplingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Completed probe = RunToEnd({BinDir() + "/stall_workload", "0"}, dir_);
    if (probe.exit_code == 2) PROTOND_SKIP_WITHOUT_GPU(probe.err);
    ASSERT_EQ(probe.exit_code, 0) << probe.err;
    daemon_.Start();
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
};

TEST_F(PcSamplingTest, StallsLandOnTheLinesThatCauseThem) {
  const Completed run = RunToEnd({BinDir() + "/protonctl", "--socket", daemon_.socket(), "run",
                                  "--mode", "pcsampling", "--", BinDir() + "/stall_workload", "2"},
                                 dir_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  int chase_line = 0, spin_line = 0;
  ASSERT_EQ(std::sscanf(run.out.c_str(), "stall_workload: chase line %d, spin line %d", &chase_line,
                        &spin_line),
            2)
      << run.out;

  client::Client client(daemon_.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  ASSERT_EQ(sessions->sessions_size(), 1);
  const v1::Session& session = sessions->sessions(0);
  for (const std::string& problem : session.problems()) {
    EXPECT_THAT(problem, Not(HasSubstr("PC sampling is off"))) << "the GPU machine refused";
  }
  auto tree = client.GetTree(session.id());
  ASSERT_TRUE(tree.ok()) << tree.status();

  const Lines chase = LinesUnder(*tree, {"memory", "chase"});
  const Lines spin = LinesUnder(*tree, {"math", "spin"});
  ASSERT_FALSE(chase.empty()) << tree->DebugString();
  ASSERT_FALSE(spin.empty()) << tree->DebugString();

  const std::string chase_suffix = "stall_workload.cu:" + std::to_string(chase_line) + "@chase";
  const std::string spin_suffix = "stall_workload.cu:" + std::to_string(spin_line) + "@spin";
  double chase_samples = 0, chase_line_samples = 0;
  std::string chase_line_name;
  for (const auto& [name, line] : chase) {
    EXPECT_THAT(name, HasSubstr("@chase")) << "a sample of another kernel under chase";
    chase_samples += MetricValue(line, "num_samples");
    if (name.ends_with(chase_suffix)) {
      chase_line_samples = MetricValue(line, "num_samples");
      chase_line_name = name;
      EXPECT_EQ(TopReason(line), "stalled_long_scoreboard") << line.DebugString();
    }
  }
  EXPECT_GT(chase_line_samples, 0.5 * chase_samples)
      << "the pointer chase's load line should hold most of chase's samples";
  bool spin_line_seen = false;
  for (const auto& [name, line] : spin) {
    EXPECT_THAT(name, HasSubstr("@spin")) << "a sample of another kernel under spin";
    if (!name.ends_with(spin_suffix)) continue;
    spin_line_seen = true;
    EXPECT_NE(TopReason(line), "stalled_long_scoreboard") << line.DebugString();
  }
  EXPECT_TRUE(spin_line_seen) << "no samples on spin's loop line " << spin_suffix;

  // Every sample is counted once: the reasons of a line add up to its samples, and stalled
  // samples are some of them.
  for (const Lines* kernel : {&chase, &spin}) {
    for (const auto& [name, line] : *kernel) {
      double reasons = 0;
      for (const v1::Metric& metric : line.metrics()) {
        if (metric.name().starts_with("stalled_")) reasons += metric.int_value();
      }
      EXPECT_EQ(reasons, MetricValue(line, "num_samples")) << name;
      EXPECT_LE(MetricValue(line, "num_stalled_samples"), MetricValue(line, "num_samples")) << name;
    }
  }

  // Asked for (protonctl tree -f sass), the load line's SASS instructions are under it, named by
  // their offsets and text ("0x0170  LDG.E R4, desc[UR4][R2.64]"), and their samples are the
  // line's. The text needs nvdisasm where protond runs; without it the tree says so.
  auto with_instructions = client.GetTree(session.id(), "", /*instructions=*/true);
  ASSERT_TRUE(with_instructions.ok()) << with_instructions.status();
  const Lines instructions = LinesUnder(*with_instructions, {"memory", "chase", chase_line_name});
  ASSERT_FALSE(instructions.empty()) << with_instructions->DebugString();
  const bool no_nvdisasm =
      with_instructions->notes_size() == 1 &&
      with_instructions->notes(0).find("found no nvdisasm") != std::string::npos;
  if (!no_nvdisasm) {
    EXPECT_EQ(with_instructions->notes_size(), 0) << with_instructions->DebugString();
  }
  double instruction_samples = 0;
  bool load_seen = false;
  for (const auto& [name, instruction] : instructions) {
    EXPECT_THAT(
        name, ::testing::MatchesRegex(no_nvdisasm ? "0x[0-9a-f]{4,}" : "0x[0-9a-f]{4,}  [A-Z@!].*"))
        << name;
    load_seen |= name.find("  LDG") != std::string::npos;
    instruction_samples += MetricValue(instruction, "num_samples");
    std::printf("  %s: %.0f samples\n", name.c_str(), MetricValue(instruction, "num_samples"));
  }
  if (!no_nvdisasm) {
    EXPECT_TRUE(load_seen) << "no global load among the load line's instructions";
  }
  EXPECT_EQ(instruction_samples, chase_line_samples);
  std::printf("%s: %zu sampled instructions, %.0f samples%s\n", chase_line_name.c_str(),
              instructions.size(), instruction_samples,
              no_nvdisasm ? " (no nvdisasm: offsets only)" : "");
}

}  // namespace
}  // namespace protond::testing
