#include "view/tree/profile_view.h"

#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "view/testing/test_profiles.h"

namespace protond::view {
namespace {

using testing::AddInt;
using testing::AddKernel;

constexpr char kTorchKernel[] =
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_21CUDAFunctorOnSelf_"
    "addIfEESt5arrayIPcLm2E"
    "EEEviT0_T1_";
constexpr char kTorchKernelDemangled[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, "
    "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, "
    "2ul>)";
constexpr char kTorchKernelShort[] = "at::native::vectorized_elementwise_kernel<...>";

// Proton's tree for three scopes around a matmul, a torch add and a Triton kernel whose launch
// metadata ran a kernel of its own, an empty scope, and a kernel outside any scope.
v1::Tree Profile() {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "w_mm");
  AddInt(AddKernel(&tree, 2, 1, "nvjet", 700, 200'000'000), "flops16", v1::Metric::INCLUSIVE,
         98'940'000'000'000);
  testing::AddNode(&tree, 3, 0, "w_torch");
  AddKernel(&tree, 4, 3, kTorchKernel, 140'000, 70'000'000);
  testing::AddNode(&tree, 5, 0, "w_triton");
  AddKernel(&tree, 6, 5, "add_one", 35'000, 30'000'000);
  testing::AddNode(&tree, 7, 5, "__proton_launch_metadata");
  AddKernel(&tree, 8, 7, "_Z13metadata_copyv", 10, 1'000'000);
  testing::AddNode(&tree, 9, 0, "idle");
  AddKernel(&tree, 10, 0, "reduce", 10, 10'000'000);
  return tree;
}

std::string View(const v1::Tree& tree, const ViewOptions& options, const v1::Tree* base = nullptr) {
  absl::StatusOr<std::string> text = RenderProfile(tree, options, base);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : text.status().ToString();
}

ViewOptions Metrics(const std::string& metrics) {
  ViewOptions options;
  options.metrics = metrics;
  return options;
}

// Launch metadata (with its kernel) and the empty scope are gone; ROOT sums what is left.
TEST(ProfileViewTest, HidesMetadataAndEmptyFramesAndShortensCppNames) {
  EXPECT_EQ(View(Profile(), Metrics("time/ms,count")),
            "time (ms)   count\n"
            "  310.000      10  ROOT\n"
            "  200.000       0  ├─ w_mm\n"
            "  200.000     700  │  └─ nvjet\n"
            "   70.000       0  ├─ w_torch\n"
            "   70.000  140000  │  └─ " +
                std::string(kTorchKernelShort) +
                "\n"
                "   30.000       0  ├─ w_triton\n"
                "   30.000   35000  │  └─ add_one\n"
                "   10.000      10  └─ reduce\n");
}

// --full-names shows the whole demangled name, --mangled the driver's.
TEST(ProfileViewTest, FullNamesAndMangledNamesShowTheWholeName) {
  for (const auto& [names, shown] :
       {std::pair<KernelNames, std::string>{KernelNames::kFull, kTorchKernelDemangled},
        {KernelNames::kMangled, kTorchKernel}}) {
    ViewOptions options = Metrics("time/ms");
    options.kernel_names = names;
    options.include = "w_torch";
    EXPECT_EQ(View(Profile(), options),
              "time (ms)\n"
              "   70.000  ROOT\n"
              "   70.000  └─ w_torch\n"
              "   70.000     └─ " +
                  shown + "\n");
  }
}

// Two instantiations of one template are two frames, though their short names are the same: -i
// and the diff see the full name, which tells them apart.
TEST(ProfileViewTest, KernelsThatShareAShortNameStayApart) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  AddKernel(&tree, 1, 0, "_Z6matmulIfEvPT_", 1, 3'000'000);  // void matmul<float>(float*)
  AddKernel(&tree, 2, 0, "_Z6matmulIdEvPT_", 1, 1'000'000);  // void matmul<double>(double*)
  v1::Tree base = tree;
  base.mutable_nodes(1)->mutable_metrics(0)->set_int_value(2'000'000);
  EXPECT_EQ(View(tree, Metrics("time/ms"), &base),
            "time (ms)\n"
            "    1.000  ROOT\n"
            "    1.000  ├─ matmul<...>\n"
            "    0.000  └─ matmul<...>\n");
  ViewOptions options = Metrics("time/ms");
  options.include = ".*double";  // matched from the start of the name, as Python's re.match
  EXPECT_EQ(View(tree, options),
            "time (ms)\n"
            "    1.000  ROOT\n"
            "    1.000  └─ matmul<...>\n");
}

// The paths through a match: its ancestors and descendants; sums over what is left.
TEST(ProfileViewTest, IncludeKeepsPathsThroughMatches) {
  ViewOptions options = Metrics("time/ms");
  options.include = "w_(mm|triton)";
  EXPECT_EQ(View(Profile(), options),
            "time (ms)\n"
            "  230.000  ROOT\n"
            "  200.000  ├─ w_mm\n"
            "  200.000  │  └─ nvjet\n"
            "   30.000  └─ w_triton\n"
            "   30.000     └─ add_one\n");
  options.include = "add";  // matched from the start of the name, as Python's re.match
  EXPECT_EQ(View(Profile(), options),
            "time (ms)\n"
            "   30.000  ROOT\n"
            "   30.000  └─ w_triton\n"
            "   30.000     └─ add_one\n");
}

TEST(ProfileViewTest, ExcludeDropsMatchesWithTheirSubtrees) {
  ViewOptions options = Metrics("time/ms");
  options.exclude = "w_.*";
  EXPECT_EQ(View(Profile(), options),
            "time (ms)\n"
            "   10.000  ROOT\n"
            "   10.000  └─ reduce\n");
}

TEST(ProfileViewTest, BadFilterOptionsAreErrors) {
  ViewOptions options;
  options.include = "a";
  options.exclude = "b";
  EXPECT_EQ(RenderProfile(Profile(), options).status().message(),
            "-i and -e cannot be used together");
  options.exclude.clear();
  options.include = "(";
  EXPECT_EQ(RenderProfile(Profile(), options).status().message(),
            "'(' is not a regular expression: missing ): (");
  EXPECT_EQ(RenderProfile(Profile(), Metrics("tflop/s")).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// In the first metric's unit, as proton-viewer: frames at 30 ms or more, and their ancestors.
// In the first metric's unit, as proton-viewer: frames at 0.03 s or more, and their ancestors;
// ROOT sums what is left.
TEST(ProfileViewTest, ThresholdKeepsFramesAtLeastThatLarge) {
  ViewOptions options = Metrics("time/s,count");
  options.threshold = 0.03;
  options.depth = 2;
  EXPECT_EQ(View(Profile(), options),
            "time (s)  count\n"
            "   0.300      0  ROOT\n"
            "   0.200      0  ├─ w_mm\n"
            "   0.070      0  ├─ w_torch\n"
            "   0.030      0  └─ w_triton\n");
  options.threshold = 0.1;
  options.depth = kDefaultTreeDepth;
  EXPECT_EQ(View(Profile(), options),
            "time (s)  count\n"
            "   0.200      0  ROOT\n"
            "   0.200      0  └─ w_mm\n"
            "   0.200    700     └─ nvjet\n");
}

TEST(ProfileViewTest, DepthLimitsTheLevels) {
  ViewOptions options = Metrics("time/%");
  options.depth = 2;
  EXPECT_EQ(View(Profile(), options),
            " time/%\n"
            "100.000  ROOT\n"
            " 64.516  ├─ w_mm\n"
            " 22.581  ├─ w_torch\n"
            "  9.677  ├─ w_triton\n"
            "  3.226  └─ reduce\n");
}

// As in proton-viewer, which derives metrics before it filters: what is left (reduce is below
// 5%) is 100 of the profile's 310 ms.
TEST(ProfileViewTest, PercentIsOfTheWholeProfileWhateverTheFilters) {
  ViewOptions options = Metrics("time/%");
  options.exclude = "w_mm";
  options.threshold = 5;
  EXPECT_EQ(View(Profile(), options),
            "time/%\n"
            "32.258  ROOT\n"
            "22.581  ├─ w_torch\n"
            "22.581  │  └─ " +
                std::string(kTorchKernelShort) +
                "\n"
                " 9.677  └─ w_triton\n"
                " 9.677     └─ add_one\n");
}

TEST(ProfileViewTest, PrintSortedListsFramesByTheFirstMetric) {
  ViewOptions options = Metrics("tflop16/s");
  options.print_sorted = true;
  options.exclude = "w_torch";
  auto padded = [](const std::string& name) { return name + std::string(105 - name.size(), ' '); };
  EXPECT_EQ(View(Profile(), options),
            "tflop16/s\n"
            "  412.250  ROOT\n"
            "  494.700  ├─ w_mm\n"
            "  494.700  │  └─ nvjet\n"
            "           ├─ w_triton\n"
            "           │  └─ add_one\n"
            "           └─ reduce\n"
            "Sorted kernels by metric tflop16/s\n" +
                padded("w_mm") + " 494.7\n" + padded("nvjet") + " 494.7\n");
}

TEST(ProfileViewTest, PrintSortedCutsLongNames) {
  v1::Tree tree = Profile();
  tree.mutable_nodes(10)->set_name(std::string(120, 'k'));
  ViewOptions options = Metrics("time/ms");
  options.print_sorted = true;
  options.depth = 0;
  const std::string text = View(tree, options);
  EXPECT_NE(text.find(std::string(100, 'k') + "...   10\n"), std::string::npos) << text;
}

// The base ran add_one faster, never ran reduce, and had a kernel the profile lacks; only the
// profile has flops16, only the base has bytes.
TEST(ProfileViewTest, DiffSubtractsTheBaseFrameByFrame) {
  v1::Tree base;
  testing::AddNode(&base, 0, 0, "ROOT");
  testing::AddNode(&base, 1, 0, "w_triton");
  AddInt(AddKernel(&base, 2, 1, "add_one", 35'000, 20'000'000), "bytes", v1::Metric::INCLUSIVE,
         1000);
  AddKernel(&base, 3, 1, "add_two", 5, 5'000'000);
  testing::AddNode(&base, 4, 0, "w_mm");
  AddKernel(&base, 5, 4, "nvjet", 700, 200'000'000);
  EXPECT_EQ(View(Profile(), Metrics("time/ms,count,bytes,flops16"), &base),
            "time (ms)   count  bytes         flops16\n"
            "   85.000      10  -1000  98940000000000  ROOT\n"
            "    0.000       0         98940000000000  ├─ w_mm\n"
            "    0.000       0         98940000000000  │  └─ nvjet\n"
            "   70.000       0                         ├─ w_torch\n"
            "   70.000  140000                         │  └─ " +
                std::string(kTorchKernelShort) +
                "\n"
                "    5.000       0  -1000                  ├─ w_triton\n"
                "   10.000       0  -1000                  │  ├─ add_one\n"
                "   -5.000      -5                         │  └─ add_two\n"
                "   10.000      10                         └─ reduce\n");
}

TEST(ProfileViewTest, FormatAppliesToSourceFrames) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddNode(&tree, 1, 0, "/src/app/model.py:42@forward");
  AddKernel(&tree, 2, 1, "gemm", 1, 1'000'000);
  ViewOptions options = Metrics("time/ms");
  options.format = FrameFormat::kFileFunction;
  EXPECT_EQ(View(tree, options),
            "time (ms)\n"
            "    1.000  ROOT\n"
            "    1.000  └─ model.py@forward\n"
            "    1.000     └─ gemm\n");
}

TEST(ProfileViewTest, ViewOptionsGoThroughTheirMessageUnchanged) {
  ViewOptions options;
  options.metrics = "time/ms,util";
  options.depth = 3;
  options.threshold = 0.25;
  options.exclude = "idle";
  options.format = FrameFormat::kFunctionLine;
  options.print_sorted = true;
  options.kernel_names = KernelNames::kMangled;
  options.colour = true;
  absl::StatusOr<ViewOptions> back = ViewOptionsFromProto(ViewOptionsToProto(options));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*RenderProfile(Profile(), *back), *RenderProfile(Profile(), options));
  EXPECT_EQ(back->metrics, options.metrics);
  EXPECT_EQ(back->depth, 3);
  EXPECT_EQ(back->threshold, 0.25);
  EXPECT_EQ(back->exclude, "idle");
  EXPECT_EQ(back->format, FrameFormat::kFunctionLine);
  EXPECT_TRUE(back->print_sorted && back->colour);
  EXPECT_EQ(back->kernel_names, KernelNames::kMangled);

  absl::StatusOr<ViewOptions> unset = ViewOptionsFromProto(ViewOptionsToProto(ViewOptions()));
  ASSERT_TRUE(unset.ok()) << unset.status();
  EXPECT_FALSE(unset->threshold.has_value());
  EXPECT_EQ(unset->depth, kDefaultTreeDepth);
}

TEST(ProfileViewTest, ViewOptionsFromAnotherClientAreChecked) {
  v1::ViewOptions options;
  EXPECT_EQ(ViewOptionsFromProto(options).status().ToString(),
            "INVALID_ARGUMENT: a tree view's depth must be at least 1, not 0");
  options.set_depth(1);
  options.set_format(static_cast<v1::ViewOptions::FrameFormat>(9));
  EXPECT_EQ(ViewOptionsFromProto(options).status().ToString(),
            "INVALID_ARGUMENT: unknown frame format 9");
}

}  // namespace
}  // namespace protond::view
