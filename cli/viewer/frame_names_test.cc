#include "cli/viewer/frame_names.h"

#include "gtest/gtest.h"

namespace protond::cli {
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

}  // namespace
}  // namespace protond::cli
