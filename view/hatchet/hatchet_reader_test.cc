#include "view/hatchet/hatchet_reader.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "common/tree/tree_depth.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/hatchet/hatchet_writer.h"
#include "view/testing/test_trees.h"

namespace protond::view {
namespace {

using ::testing::HasSubstr;

constexpr char kFixture[] = HATCHET_TESTDATA_DIR "/h100_proton.hatchet";

const v1::Metric* FindMetric(const v1::TreeNode& node, const std::string& name) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() == name) return &metric;
  }
  return nullptr;
}

std::string Error(std::string_view json) { return ParseHatchet(json).status().ToString(); }

// The fixture has the layout Proton writes (PROTON_COMPAT.md): scopes, kernels with count,
// time, device_id as a string and device_type, a state frame, and an H100's device_info.
TEST(HatchetReaderTest, ReadsProtonsLayoutInPreOrder) {
  absl::StatusOr<v1::Tree> tree = ReadHatchetFile(kFixture);
  ASSERT_TRUE(tree.ok()) << tree.status();
  std::vector<std::string> names;
  std::vector<uint32_t> parents;
  for (const v1::TreeNode& node : tree->nodes()) {
    EXPECT_EQ(node.id(), names.size());
    names.push_back(node.name());
    parents.push_back(node.parent_id());
  }
  EXPECT_THAT(names,
              ::testing::ElementsAre(
                  "ROOT", "w_mm", "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT", "w_torch",
                  "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_21CUDAFunctorOnSelf_"
                  "addIfEESt5arrayIPcLm2EEEEviT0_T1_",
                  "w_triton", "add_one", "__proton_launch_metadata", "_Z13metadata_copyv", "w_cpu",
                  "idle", "triton_red_fused_0"));
  EXPECT_THAT(parents, ::testing::ElementsAre(0, 0, 1, 0, 3, 0, 5, 5, 7, 0, 0, 0));
}

TEST(HatchetReaderTest, KernelMetricsKeepTheirTypesAndAggregation) {
  absl::StatusOr<v1::Tree> tree = ReadHatchetFile(kFixture);
  ASSERT_TRUE(tree.ok()) << tree.status();
  const v1::TreeNode& matmul = tree->nodes(2);
  EXPECT_EQ(matmul.count(), 700u);
  EXPECT_EQ(matmul.metrics_size(), 4);  // bytes, device_id, flops16, time (ns)
  EXPECT_EQ(FindMetric(matmul, "time (ns)")->int_value(), 200000000);
  EXPECT_EQ(FindMetric(matmul, "time (ns)")->aggregation(), v1::Metric::INCLUSIVE);
  EXPECT_EQ(FindMetric(matmul, "flops16")->int_value(), 98940000000000);
  EXPECT_EQ(FindMetric(matmul, "device_id")->int_value(), 0);
  EXPECT_EQ(FindMetric(matmul, "device_id")->aggregation(), v1::Metric::PROPERTY);
  EXPECT_EQ(FindMetric(matmul, "device_type"), nullptr);
  EXPECT_EQ(FindMetric(matmul, "count"), nullptr);
  // Not among ROOT's placeholders: Proton does not sum it (cpu_timed_scope's metric).
  EXPECT_EQ(FindMetric(tree->nodes(9), "cpu_time (ns)")->aggregation(), v1::Metric::EXCLUSIVE);
  EXPECT_EQ(tree->nodes(0).metrics_size(), 0);  // the placeholders are not values
  EXPECT_EQ(tree->nodes(1).metrics_size(), 0);
}

TEST(HatchetReaderTest, ReadsCudaDeviceInfo) {
  absl::StatusOr<v1::Tree> tree = ReadHatchetFile(kFixture);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->devices_size(), 1);
  const v1::Device& h100 = tree->devices(0);
  EXPECT_EQ(h100.device_id(), 0u);
  EXPECT_EQ(h100.arch(), 90u);
  EXPECT_EQ(h100.num_sms(), 132u);
  EXPECT_EQ(h100.clock_rate_khz(), 1980000u);
  EXPECT_EQ(h100.memory_clock_rate_khz(), 2619000u);
  EXPECT_EQ(h100.bus_width_bits(), 5120u);
}

// What protond writes for a session reads back as the same tree.
TEST(HatchetReaderTest, ReadsWhatProtondWrites) {
  v1::Tree session;
  testing::AddNode(&session, 0, 0, "ROOT");
  v1::TreeNode* scope = testing::AddNode(&session, 7, 0, "step", 3);
  testing::AddInt(scope, "tokens", v1::Metric::INCLUSIVE, 12);
  v1::TreeNode* kernel = testing::AddNode(&session, 9, 7, "gemm", 40);
  testing::AddInt(kernel, "time (ns)", v1::Metric::INCLUSIVE, 5000);
  testing::AddInt(kernel, "device_id", v1::Metric::PROPERTY, 1);
  testing::AddDouble(kernel, "flops", 2.5);
  v1::Device* device = session.add_devices();
  device->set_device_id(1);
  device->set_arch(80);

  absl::StatusOr<v1::Tree> tree = ParseHatchet(RenderHatchet(session));
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes_size(), 3);
  EXPECT_EQ(tree->nodes(1).name(), "step");
  EXPECT_EQ(tree->nodes(1).count(), 0u);  // a scope's CPU count is not in the file
  EXPECT_EQ(FindMetric(tree->nodes(1), "tokens")->int_value(), 12);
  EXPECT_EQ(tree->nodes(2).parent_id(), 1u);
  EXPECT_EQ(tree->nodes(2).count(), 40u);
  EXPECT_EQ(FindMetric(tree->nodes(2), "time (ns)")->int_value(), 5000);
  EXPECT_EQ(FindMetric(tree->nodes(2), "device_id")->int_value(), 1);
  EXPECT_EQ(FindMetric(tree->nodes(2), "flops")->double_value(), 2.5);
  ASSERT_EQ(tree->devices_size(), 1);
  EXPECT_EQ(tree->devices(0).device_id(), 1u);
  EXPECT_EQ(tree->devices(0).arch(), 80u);
}

TEST(HatchetReaderTest, VectorMetricsAreListsBothWays) {
  v1::Tree session;
  testing::AddNode(&session, 0, 0, "ROOT");
  v1::TreeNode* scope = testing::AddNode(&session, 7, 0, "step", 2);
  testing::AddIntVector(scope, "v", {2, 4, 6});
  testing::AddDoubleVector(scope, "w", {0.5, -1.25});
  const std::string file = RenderHatchet(session);
  // As Proton writes them: a list under the name, and a list of zeros as ROOT's placeholder.
  EXPECT_NE(file.find(R"("v": [
                        2,
                        4,
                        6
                    ])"),
            std::string::npos)
      << file;
  EXPECT_NE(file.find(R"("v": [
                0,
                0,
                0
            ])"),
            std::string::npos)
      << file;

  absl::StatusOr<v1::Tree> tree = ParseHatchet(file);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes_size(), 2);
  EXPECT_EQ(tree->nodes(0).metrics_size(), 0);  // the placeholders are not values
  const v1::Metric* v = FindMetric(tree->nodes(1), "v");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->aggregation(), v1::Metric::INCLUSIVE);
  ASSERT_EQ(v->value_case(), v1::Metric::kIntVector);
  EXPECT_EQ(std::vector<int64_t>(v->int_vector().values().begin(), v->int_vector().values().end()),
            (std::vector<int64_t>{2, 4, 6}));
  const v1::Metric* w = FindMetric(tree->nodes(1), "w");
  ASSERT_EQ(w->value_case(), v1::Metric::kDoubleVector);
  EXPECT_EQ(w->double_vector().values(1), -1.25);

  // One float makes the list a vector of doubles, as Proton's lists are typed.
  absl::StatusOr<v1::Tree> mixed =
      ParseHatchet(R"([{"frame": {"name": "R"}, "children": [{"frame": {"name": "s"},
                       "metrics": {"m": [1, 2.5, null]}}]}])");
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  const v1::Metric* m = FindMetric(mixed->nodes(1), "m");
  ASSERT_EQ(m->value_case(), v1::Metric::kDoubleVector);
  EXPECT_EQ(m->double_vector().values(0), 1.0);
  EXPECT_TRUE(std::isnan(m->double_vector().values(2)));
}

// Issue 27: JSON has no NaN or infinity; the writer puts null, which reads back as a NaN.
TEST(HatchetReaderTest, NanAndInfinitiesAreWrittenAsNullAndReadAsNan) {
  v1::Tree session;
  testing::AddNode(&session, 0, 0, "ROOT");
  v1::TreeNode* step = testing::AddNode(&session, 1, 0, "step", 1);
  testing::AddDouble(step, "loss", std::nan(""));
  testing::AddDouble(step, "gain", std::numeric_limits<double>::infinity());
  const std::string json = RenderHatchet(session);
  EXPECT_THAT(json, HasSubstr(R"("gain": null)"));
  EXPECT_THAT(json, HasSubstr(R"("loss": null)"));
  absl::StatusOr<v1::Tree> tree = ParseHatchet(json);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->nodes_size(), 2);
  EXPECT_TRUE(std::isnan(FindMetric(tree->nodes(1), "loss")->double_value()));
  EXPECT_TRUE(std::isnan(FindMetric(tree->nodes(1), "gain")->double_value()));
}

TEST(HatchetReaderTest, DeviceInfoMayBeLeftOutAndRootMayListNoMetrics) {
  absl::StatusOr<v1::Tree> tree =
      ParseHatchet(R"([{"frame": {"name": "ROOT"}, "metrics": {}, "children": [)"
                   R"({"frame": {"name": "k"}, "metrics": {"x": 1.5}}]}])");
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->devices_size(), 0);
  EXPECT_EQ(FindMetric(tree->nodes(1), "x")->aggregation(), v1::Metric::INCLUSIVE);
}

TEST(HatchetReaderTest, NotJsonNamesTheByteOffset) {
  EXPECT_EQ(Error("[{\"frame\": }]"),
            "INVALID_ARGUMENT: not JSON: byte offset 11: parse error at line 1, column 12: syntax "
            "error while parsing value - unexpected '}'; expected '[', '{', or a literal");
  EXPECT_THAT(Error(""), HasSubstr("not JSON: byte offset 0: "));
  EXPECT_THAT(Error("[{}] x"), HasSubstr("not JSON: byte offset 5: "));
}

// Found by hatchet_reader_fuzzer: a number too large for a double is nlohmann's out_of_range
// error, not a parse_error, and ended the reader in std::terminate.
TEST(HatchetReaderTest, Fuzzed_NumberOverflowIsAnError) {
  EXPECT_EQ(Error("[1e999]"), "INVALID_ARGUMENT: unreadable JSON: number overflow parsing '1e999'");
  EXPECT_EQ(Error(R"j([{"frame":{"name":"ROOT","type":"function"},"metrics":{"count":0,)j"
                  R"j("time (ns)":0},"children":[{"frame":{"name":"kernel"},"metrics":{"count":3,)j"
                  R"j("time (ns)":1200,"device_id":"0","device_type":"CUDA"},"children":[]}]},)j"
                  R"j({"CUDA":{"0":{"arch":"90","znum_sms":132,"clock_rate":1e80000,)j"
                  R"j("memory_clock_rate":2619000,"bus_width":5120}}}])j"),
            "INVALID_ARGUMENT: unreadable JSON: number overflow parsing '1e80000'");
}

TEST(HatchetReaderTest, WrongShapesNameTheJsonPointer) {
  EXPECT_EQ(Error("{}"), "INVALID_ARGUMENT: /: a Hatchet profile is an array [root, device_info]");
  EXPECT_EQ(Error("[{}, {}, {}]"),
            "INVALID_ARGUMENT: /: a Hatchet profile is an array [root, device_info]");
  EXPECT_EQ(Error("[[]]"), "INVALID_ARGUMENT: /0: a node must be an object, not array");
  EXPECT_EQ(Error(R"([{"frame": {"name": "ROOT"}, "children": [{"frame": {}}]}])"),
            "INVALID_ARGUMENT: /0/children/0/frame: a frame needs a \"name\" string");
  EXPECT_EQ(Error(R"([{"metrics": {}}])"), "INVALID_ARGUMENT: /0: a node needs a \"frame\"");
  EXPECT_EQ(Error(R"([{"frame": {"name": "R"}, "children": {}}])"),
            "INVALID_ARGUMENT: /0/children: \"children\" must be an array");
  EXPECT_EQ(Error(R"([{"frame": {"name": "R"}, "metrics": []}])"),
            "INVALID_ARGUMENT: /0/metrics: \"metrics\" must be an object");
}

TEST(HatchetReaderTest, BadMetricValuesAreErrors) {
  auto with_metrics = [](const std::string& metrics) {
    return Error(R"([{"frame": {"name": "R"}, "children": [{"frame": {"name": "k"}, "metrics": )" +
                 metrics + "}]}]");
  };
  EXPECT_EQ(
      with_metrics(R"json({"time (ns)": "5"})json"),
      "INVALID_ARGUMENT: /0/children/0/metrics/time (ns): a metric must be a number or a list "
      "of numbers, not string");
  EXPECT_EQ(with_metrics(R"({"v": [1, [2]]})"),
            "INVALID_ARGUMENT: /0/children/0/metrics/v/1: a vector metric's element must be a "
            "number, not array");
  EXPECT_EQ(with_metrics(R"({"v": [1, "2"]})"),
            "INVALID_ARGUMENT: /0/children/0/metrics/v/1: a metric must be a number or a list of "
            "numbers, not string");
  EXPECT_EQ(with_metrics(R"({"count": -1})"),
            "INVALID_ARGUMENT: /0/children/0/metrics/count: count must be an integer >= 0, not -1");
  EXPECT_EQ(with_metrics(R"({"bytes": 18446744073709551615})"),
            "INVALID_ARGUMENT: /0/children/0/metrics/bytes: value 18446744073709551615 does not "
            "fit a 64-bit signed integer");
  EXPECT_EQ(with_metrics(R"({"device_id": "gpu0"})"),
            "INVALID_ARGUMENT: /0/children/0/metrics/device_id: a device id must be a number or a "
            "string of digits, not \"gpu0\"");
}

TEST(HatchetReaderTest, BadDeviceInfoIsAnError) {
  const std::string root = R"({"frame": {"name": "ROOT"}})";
  EXPECT_EQ(Error("[" + root + ", []]"), "INVALID_ARGUMENT: /1: device_info must be an object");
  EXPECT_EQ(Error("[" + root + R"(, {"CUDA": {"0": {"arch": "sm90"}}}])"),
            "INVALID_ARGUMENT: /1/CUDA/0/arch: must be an integer >= 0, not \"sm90\"");
  EXPECT_EQ(Error("[" + root + R"(, {"CUDA": {"x": {}}}])"),
            "INVALID_ARGUMENT: /1/CUDA/x: a device id must be a number or a string of digits, not "
            "\"x\"");
  // Other vendors' devices are left out, not errors.
  absl::StatusOr<v1::Tree> tree = ParseHatchet("[" + root + R"(, {"HIP": {"0": {}}}])");
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->devices_size(), 0);
}

// ROOT and `levels` scopes below it, each inside the one before.
std::string Chain(int levels) {
  std::string json = "[";
  for (int i = 0; i <= levels; ++i) json += R"({"frame": {"name": "f"}, "children": [)";
  for (int i = 0; i <= levels; ++i) json += "]}";
  return json + "]";
}

TEST(HatchetReaderTest, ATreeAsDeepAsTheLimitIsRead) {
  absl::StatusOr<v1::Tree> tree = ParseHatchet(Chain(kMaxTreeDepth));
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->nodes_size(), kMaxTreeDepth + 1);
  EXPECT_EQ(tree->nodes(kMaxTreeDepth).parent_id(), static_cast<uint32_t>(kMaxTreeDepth - 1));
}

// Before (issue 27): any depth was read, in time that grew with the square of the depth (every
// node spelled out its JSON pointer), and the exports then recursed as deep and crashed.
TEST(HatchetReaderTest, ATreeDeeperThanTheLimitIsRefused) {
  const std::string refused =
      "INVALID_ARGUMENT: the tree goes deeper than 4096 levels below ROOT, the most protonctl "
      "reads";
  EXPECT_EQ(Error(Chain(kMaxTreeDepth + 1)), refused);
  EXPECT_EQ(Error(Chain(100000)), refused);
}

TEST(HatchetReaderTest, AnErrorDeepInTheTreeNamesItsJsonPointer) {
  EXPECT_EQ(Error(R"([{"frame": {"name": "R"}, "children": [{"frame": {"name": "a"}},
                     {"frame": {"name": "b"}, "children": [{"frame": {"name": "c"},
                     "metrics": {"count": "x"}}]}]}])"),
            "INVALID_ARGUMENT: /0/children/1/children/0/metrics/count: count must be an integer "
            ">= 0, not \"x\"");
}

// A value nested deeper than any tree may be is named by its type: printing it would recurse.
TEST(HatchetReaderTest, ADeeplyNestedValueIsNamedNotPrinted) {
  const std::string nested = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(Error(R"([{"frame": {"name": "R"}, "metrics": {"count": )" + nested + "}}]"),
            "INVALID_ARGUMENT: /0/metrics/count: count must be an integer >= 0, not an array");
  EXPECT_EQ(Error(R"([{"frame": {"name": "R"}, "metrics": {"device_id": )" + nested + "}}]"),
            "INVALID_ARGUMENT: /0/metrics/device_id: a device id must be a number or a string of "
            "digits, not an array");
  EXPECT_EQ(Error(R"([{"frame": {"name": "R"}}, {"CUDA": {"0": {"arch": )" + nested + "}}}]"),
            "INVALID_ARGUMENT: /1/CUDA/0/arch: must be an integer >= 0, not an array");
}

TEST(HatchetReaderTest, MissingFileNamesThePath) {
  EXPECT_EQ(ReadHatchetFile("/nonexistent/x.hatchet").status().ToString(),
            "NOT_FOUND: /nonexistent/x.hatchet: cannot open the file");
}

// Two files recorded on the H100 from one Triton+PyTorch program (tests/gpu/compare_python_api.py
// with KEEP_DIR): one by Triton 3.6's own Proton, one exported by protond.profiler. Read the same
// way, they are the same tree: the same paths with the same counts and metric names. Proton 3.6
// writes children sorted by name, protond in the order first seen, so paths are compared as sets.
std::map<std::string, std::pair<uint64_t, std::set<std::string>>> PathsOf(const v1::Tree& tree) {
  std::map<uint32_t, std::string> path_of = {{0, ""}};
  std::map<std::string, std::pair<uint64_t, std::set<std::string>>> paths;
  for (const v1::TreeNode& node : tree.nodes()) {
    if (node.id() == 0) continue;
    const std::string path = path_of[node.parent_id()] + "/" + node.name();
    path_of[node.id()] = path;
    std::set<std::string> metric_names;
    for (const v1::Metric& metric : node.metrics()) metric_names.insert(metric.name());
    paths[path] = {node.count(), metric_names};
  }
  return paths;
}

TEST(HatchetReaderTest, ProtonsAndProtondsFilesOfOneProgramAreTheSameTree) {
  absl::StatusOr<v1::Tree> proton =
      ReadHatchetFile(HATCHET_TESTDATA_DIR "/h100_triton36_proton_recorded.hatchet");
  absl::StatusOr<v1::Tree> protond =
      ReadHatchetFile(HATCHET_TESTDATA_DIR "/h100_protond_recorded.hatchet");
  ASSERT_TRUE(proton.ok()) << proton.status();
  ASSERT_TRUE(protond.ok()) << protond.status();
  const auto proton_paths = PathsOf(*proton);
  EXPECT_EQ(proton_paths.size(), 22u);
  EXPECT_EQ(proton_paths, PathsOf(*protond));
  EXPECT_EQ(proton_paths.at("/model/step/triton/add_one").first, 60u);
  EXPECT_EQ(proton_paths.at("/model/step/triton/matmul_2048x2048x2048").second,
            (std::set<std::string>{"bytes", "device_id", "flops16", "time (ns)"}));
  ASSERT_EQ(proton->devices_size(), 1);
  EXPECT_EQ(proton->devices(0).num_sms(), protond->devices(0).num_sms());
}

}  // namespace
}  // namespace protond::view
