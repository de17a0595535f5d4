#include "view/export/pprof/pprof.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/render/metric_spec.h"
#include "view/render/metric_values.h"
#include "view/testing/test_export_profiles.h"
#include "view/testing/test_pprof.h"
#include "view/tree/frame_filter.h"

namespace protond::view {
namespace {

namespace pprof = perftools::profiles;
using ::testing::ElementsAre;
using ::testing::Pair;

// The export tree (test_export_profiles.h) with user metrics: an integer, a float that rounds,
// an exclusive one, and the kernels' device_id property.
v1::Tree TreeWithMetrics() {
  v1::Tree tree = testing::ExportTree();
  testing::AddInt(tree.mutable_nodes(3), "flops", v1::Metric::INCLUSIVE, 4000);  // _Z6matmulii
  testing::AddInt(tree.mutable_nodes(4), "flops", v1::Metric::INCLUSIVE, 200);   // add_one
  testing::AddDouble(tree.mutable_nodes(1), "energy (ms)", 1.6);                 // train
  testing::AddDouble(tree.mutable_nodes(2), "energy (ms)", 0.4);                 // step
  testing::AddInt(tree.mutable_nodes(2), "steps", v1::Metric::EXCLUSIVE, 7);
  return tree;
}

// What protonctl writes, read back as pprof reads it.
pprof::Profile Export(const v1::Tree& tree, const PprofOrigin& origin = {"session 7 (train)"}) {
  absl::StatusOr<std::string> file = RenderPprof(tree, origin);
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? testing::ParsePprof(*file) : pprof::Profile();
}

const std::string& Text(const pprof::Profile& profile, int64_t index) {
  return profile.string_table(index);
}

std::vector<std::string> Types(const pprof::Profile& profile) {
  std::vector<std::string> types;
  for (const pprof::ValueType& type : profile.sample_type()) {
    types.push_back(Text(profile, type.type()) + "/" + Text(profile, type.unit()));
  }
  return types;
}

// Each sample's stack, ROOT first ("ROOT;train;step"), with its values.
std::map<std::string, std::vector<int64_t>> Samples(const pprof::Profile& profile) {
  std::map<uint64_t, std::string> function_names;
  for (const pprof::Function& function : profile.function()) {
    function_names[function.id()] = Text(profile, function.name());
  }
  std::map<uint64_t, std::string> location_names;
  for (const pprof::Location& location : profile.location()) {
    EXPECT_EQ(location.line_size(), 1);
    location_names[location.id()] = function_names.at(location.line(0).function_id());
  }
  std::map<std::string, std::vector<int64_t>> samples;
  for (const pprof::Sample& sample : profile.sample()) {
    std::vector<std::string> stack;
    for (uint64_t id : sample.location_id()) stack.push_back(location_names.at(id));
    std::reverse(stack.begin(), stack.end());
    const std::string key = absl::StrJoin(stack, ";");
    EXPECT_FALSE(samples.contains(key)) << key;
    samples[key] = {sample.value().begin(), sample.value().end()};
  }
  return samples;
}

TEST(PprofTest, SampleTypesAreCountTimesAndEachSummedMetric) {
  const pprof::Profile profile = Export(TreeWithMetrics());
  EXPECT_THAT(Types(profile),
              ElementsAre("count/count", "cpu_time/nanoseconds", "gpu_time/nanoseconds",
                          "energy/milliseconds", "steps/count", "flops/count"));
  EXPECT_EQ(Text(profile, profile.default_sample_type()), "gpu_time");
  EXPECT_EQ(profile.string_table(0), "");
}

TEST(PprofTest, EachNodeIsASampleOfItsOwnValuesLeafFirst) {
  const pprof::Profile profile = Export(TreeWithMetrics());
  // count, cpu_time, gpu_time, energy, steps, flops; the hidden frames are left out.
  EXPECT_THAT(
      Samples(profile),
      ElementsAre(Pair("ROOT", ElementsAre(0, 0, 0, 0, 0, 0)),
                  Pair("ROOT;[CUDA memcpy Host-to-Device]", ElementsAre(1, 0, 30, 0, 0, 0)),
                  Pair("ROOT;train", ElementsAre(1, 200, 0, 2, 0, 0)),
                  Pair("ROOT;train;add_one", ElementsAre(1, 0, 50, 0, 0, 0)),
                  Pair("ROOT;train;step", ElementsAre(2, 800, 0, 0, 7, 0)),
                  Pair("ROOT;train;step;add_one", ElementsAre(2, 0, 100, 0, 0, 200)),
                  Pair("ROOT;train;step;matmul(int, int)", ElementsAre(4, 0, 600, 0, 0, 4000))));
  const pprof::Sample& matmul = profile.sample(3);
  ASSERT_EQ(matmul.location_id_size(), 4);
  const pprof::Function& leaf = profile.function(matmul.location_id(0) - 1);
  EXPECT_EQ(Text(profile, leaf.name()), "matmul(int, int)");
  EXPECT_EQ(Text(profile, leaf.system_name()), "_Z6matmulii");
}

// pprof's cumulative value of a frame is the sum of the samples under it: it must be what
// protonctl tree shows for the summed metrics.
TEST(PprofTest, SummingSamplesUnderAFrameGivesTheTreeViewsInclusiveValue) {
  const v1::Tree full = TreeWithMetrics();
  const std::map<std::string, std::vector<int64_t>> samples = Samples(Export(full));
  // As protonctl tree shows it: without the hidden frames.
  const v1::Tree tree = DropHiddenFrames(full, *CheckTreeShape(full));
  const TreeShape shape = *CheckTreeShape(tree);
  const std::vector<std::pair<int, std::string>> checked = {
      {1, "cpu_time/ns"}, {2, "time/ns"}, {5, "flops"}};
  for (const auto& [index, spec] : checked) {
    const MetricColumn column = ParseMetricSpec(spec, tree)->front();
    const std::vector<MetricValue> inclusive = ComputeColumn(tree, shape, column);
    for (int node : {0, 1, 2, 3}) {  // ROOT, train, step, matmul
      std::vector<std::string> path;
      for (int at = node; at >= 0; at = shape.parent[at]) path.push_back(tree.nodes(at).name());
      std::reverse(path.begin(), path.end());
      std::string prefix = absl::StrJoin(path, ";");
      if (node == 3) prefix = "ROOT;train;step;matmul(int, int)";
      int64_t sum = 0;
      for (const auto& [stack, values] : samples) {
        if (stack == prefix || stack.starts_with(prefix + ";")) sum += values[index];
      }
      // ROOT's own CPU time is its children's: the tree view shows it so too.
      EXPECT_EQ(sum, inclusive[node].AsDouble()) << spec << " at " << prefix;
    }
  }
}

TEST(PprofTest, TheSessionsNameAndTimesAreInTheProfile) {
  const pprof::Profile profile =
      Export(TreeWithMetrics(),
             {"session 7 (train)", 1'700'000'000'000'000'000, 1'700'000'002'500'000'000});
  EXPECT_EQ(profile.time_nanos(), 1'700'000'000'000'000'000);
  EXPECT_EQ(profile.duration_nanos(), 2'500'000'000);
  EXPECT_THAT(
      testing::PprofComments(profile),
      ElementsAre("protond: session 7 (train)", "started 2023-11-14T22:13:20+00:00",
                  "stopped 2023-11-14T22:13:22.5+00:00",
                  "left out, properties and vector metrics are not summed numbers: device_id"));
}

// Names are the program's: control characters, a megabyte and bytes that are not UTF-8 are
// strings of the profile, readable back (protobuf refuses a string field that is not UTF-8).
TEST(PprofTest, HostileNamesSurviveAsStrings) {
  const std::string control = std::string("a\x1b]0;owned\x07\x1b[2J\nb;c\0d", 16);
  const std::string huge(1 << 20, 'x');
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddKernel(&tree, 1, 0, control, 1, 5);
  testing::AddKernel(&tree, 2, 0, huge, 1, 6);
  testing::AddKernel(&tree, 3, 0, "bad\xff\xc3(", 1, 7);
  testing::AddKernel(&tree, 4, 0, "_Z\xff", 1, 8);
  const pprof::Profile profile = Export(tree);
  EXPECT_THAT(
      Samples(profile),
      ElementsAre(Pair("ROOT", ElementsAre(0, 0)), Pair("ROOT;_Z\xef\xbf\xbd", ElementsAre(1, 8)),
                  Pair("ROOT;" + control, ElementsAre(1, 5)),
                  Pair("ROOT;bad\xef\xbf\xbd\xef\xbf\xbd(", ElementsAre(1, 7)),
                  Pair("ROOT;" + huge, ElementsAre(1, 6))));
}

}  // namespace
}  // namespace protond::view
