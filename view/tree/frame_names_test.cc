#include "view/tree/frame_names.h"

#include "gtest/gtest.h"

namespace protond::view {
namespace {

constexpr char kFrame[] = "/src/app/model.py:42@forward";

TEST(FrameNamesTest, FormatsSourceFramesAsProtonViewer) {
  EXPECT_EQ(FormatFrameName(kFrame, FrameFormat::kFull), kFrame);
  EXPECT_EQ(FormatFrameName(kFrame, FrameFormat::kSass), kFrame);  // full, with instructions
  EXPECT_EQ(FormatFrameName(kFrame, FrameFormat::kFileFunctionLine), "model.py:42@forward");
  EXPECT_EQ(FormatFrameName(kFrame, FrameFormat::kFunctionLine), "42@forward");
  EXPECT_EQ(FormatFrameName(kFrame, FrameFormat::kFileFunction), "model.py@forward");
  EXPECT_EQ(FormatFrameName("model.py:7@<module>", FrameFormat::kFileFunction),
            "model.py@<module>");
}

// Scopes and kernels keep their names: "a::b" is not "<file>:<line>".
TEST(FrameNamesTest, OtherNamesAreLeftAlone) {
  for (const char* name : {"ROOT", "w_mm", "at::native::add(int)", "x:y@z", "a:@b", "f@g"}) {
    EXPECT_EQ(FormatFrameName(name, FrameFormat::kFileFunction), name);
    EXPECT_EQ(FormatFrameName(name, FrameFormat::kFunctionLine), name);
  }
}

TEST(FrameNamesTest, ParsesProtonViewersChoices) {
  EXPECT_EQ(*ParseFrameFormat("file_function_line"), FrameFormat::kFileFunctionLine);
  EXPECT_EQ(*ParseFrameFormat("full"), FrameFormat::kFull);
  EXPECT_EQ(*ParseFrameFormat("sass"), FrameFormat::kSass);
  EXPECT_EQ(ParseFrameFormat("short").status().message(),
            "-f is full, file_function_line, function_line, file_function or sass, not 'short'");
}

TEST(FrameNamesTest, DemanglesItaniumNamesOnly) {
  EXPECT_EQ(DemangleFrameName("_Z13metadata_copyv"), "metadata_copy()");
  EXPECT_EQ(DemangleFrameName("_ZN7cutlass6KernelINS_4gemmEEEvNT_6ParamsE"),
            "void cutlass::Kernel<cutlass::gemm>(cutlass::gemm::Params)");
  EXPECT_EQ(DemangleFrameName("add_one"), "add_one");
  EXPECT_EQ(DemangleFrameName("_Znot a name"), "_Znot a name");
}

TEST(FrameNamesTest, ShortNameIsTheQualifiedFunctionWithTemplateArgumentsElided) {
  const std::pair<const char*, const char*> cases[] = {
      // PyTorch's elementwise kernel: return type, template arguments and parameters.
      {"void at::native::vectorized_elementwise_kernel<4, "
       "at::native::CUDAFunctorOnSelf_add<float>, "
       "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, "
       "2ul>)",
       "at::native::vectorized_elementwise_kernel<...>"},
      // A lambda and parentheses inside the template arguments.
      {"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
       "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::"
       "{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda("
       "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda(float)#1} const&)::"
       "{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_"
       "cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda(float)#1}>("
       "at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
       "{lambda()#3}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})",
       "at::native::elementwise_kernel<...>"},
      // A return type with template arguments and spaces of its own.
      {"std::enable_if<!(T5), void>::type internal::gemvx::kernel<int, int, float>(float const*)",
       "internal::gemvx::kernel<...>"},
      // No template, no return type, a const member function.
      {"metadata_copy()", "metadata_copy"},
      {"void cutlass::Kernel<cutlass::gemm>(cutlass::gemm::Params)", "cutlass::Kernel<...>"},
      {"Foo<int>::run(int) const", "Foo<...>::run"},
      // Operator names are no brackets.
      {"bool ns::operator< <ns::Key>(ns::Key const&, ns::Key const&)", "ns::operator< <...>"},
      {"ns::Less::operator()(int, int) const", "ns::Less::operator()"},
      {"void ns::Shift::operator<<(int)", "ns::Shift::operator<<"},
      {"ns::Ptr::operator->() const", "ns::Ptr::operator->"},
      {"void* operator new(unsigned long)", "operator new"},
      // A lambda outside any template, and an anonymous namespace.
      {"at::native::launch(int)::{lambda(int)#1}::operator()(int) const",
       "at::native::launch(...)::{lambda(int)#1}::operator()"},
      {"void (anonymous namespace)::fill_kernel<float>(float*, int)",
       "(anonymous namespace)::fill_kernel<...>"},
      // Not a function: only template arguments are elided.
      {"add_one", "add_one"},
      {"std::vector<int>", "std::vector<...>"},
      // An unclosed bracket ends the name rather than reading past it; no parameter list, so no
      // function, and nothing is taken for a return type.
      {"void broken<int(float)", "void broken<...>"},
  };
  for (const auto& [demangled, short_name] : cases) {
    EXPECT_EQ(ShortFunctionName(demangled), short_name) << demangled;
  }
}

TEST(FrameNamesTest, KernelNamesShortFullOrMangled) {
  constexpr char kMangled[] = "_ZN7cutlass6KernelINS_4gemmEEEvNT_6ParamsE";
  EXPECT_EQ(KernelName(kMangled, KernelNames::kShort), "cutlass::Kernel<...>");
  EXPECT_EQ(KernelName(kMangled, KernelNames::kFull),
            "void cutlass::Kernel<cutlass::gemm>(cutlass::gemm::Params)");
  EXPECT_EQ(KernelName(kMangled, KernelNames::kMangled), kMangled);
  // Names that are not mangled C++ stay as they are: Triton's, copies, scopes, source frames.
  for (const char* name : {"triton_poi_fused_add_0", "[CUDA memcpy Host-to-Device]",
                           "step (warmup)", "/src/app/model.py:42@forward", "_Znot a name"}) {
    EXPECT_EQ(KernelName(name, KernelNames::kShort), name);
    EXPECT_EQ(KernelName(name, KernelNames::kFull), name);
  }
}

TEST(FrameNamesTest, FullNamesOrMangledNotBoth) {
  KernelNames names = KernelNames::kShort;
  ASSERT_TRUE(ChooseKernelNames("--full-names", &names).ok());
  EXPECT_EQ(names, KernelNames::kFull);
  ASSERT_TRUE(ChooseKernelNames("--full-names", &names).ok());
  EXPECT_EQ(ChooseKernelNames("--mangled", &names).message(),
            "--full-names or --mangled, not both");
  names = KernelNames::kShort;
  ASSERT_TRUE(ChooseKernelNames("--mangled", &names).ok());
  EXPECT_EQ(names, KernelNames::kMangled);
}

}  // namespace
}  // namespace protond::view
