#include "shim/gpu/source_lines.h"

#include <cupti_pcsampling.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace protond::shim::gpu {
namespace {

using ::testing::Contains;
using ::testing::Each;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(SourceFrameNameTest, NamesLinesAsProtonDoes) {
  EXPECT_EQ(SourceFrameName("/src/app", "kernels.py", 42, "matmul_kernel", 0x1a0),
            "/src/app/kernels.py:42@matmul_kernel");
  EXPECT_EQ(SourceFrameName("", "kernels.py", 42, "matmul_kernel", 0x1a0),
            "kernels.py:42@matmul_kernel");
}

TEST(SourceFrameNameTest, WithoutALineNamesTheOffset) {
  EXPECT_EQ(SourceFrameName("/src", "k.cu", 0, "_Z4spinPfj", 0x1a0), "_Z4spinPfj+0x1a0");
  EXPECT_EQ(SourceFrameName("", "", 7, "spin", 0), "spin+0x0");
}

// The names given out, by id (ids are index + 1), as the shim's name table would keep them.
std::vector<std::string> g_names;
// The cubins sent to the daemon (CRC, size), and the recording set the host says records now.
std::vector<std::pair<uint64_t, size_t>> g_sent;
uint32_t g_recording_set = 1;
const ProtondGpuHost kHost = {
    /*current_context=*/nullptr,
    /*recording_set=*/[] { return g_recording_set; },
    /*api_returned=*/nullptr,
    /*launch_target=*/nullptr,
    /*intern_context=*/nullptr,
    /*context_name=*/nullptr,
    /*intern_kernel_name=*/nullptr,
    /*intern_name=*/
    [](const char* name, uint8_t name_class) {
      EXPECT_EQ(name_class, static_cast<uint8_t>(record::NameClass::kSourceLine));
      g_names.push_back(name);
      return static_cast<uint32_t>(g_names.size());
    },
    /*write_activity=*/nullptr,
    /*write_pc_sample=*/nullptr,
    /*write_notice=*/nullptr,
    /*count_dropped=*/nullptr,
    /*write_device_info=*/nullptr,
    /*write_cubin=*/
    [](uint64_t crc, const void*, size_t bytes) { g_sent.emplace_back(crc, bytes); },
};

std::vector<uint8_t> Fixture() {
  std::ifstream in(PROTOND_GPU_TESTDATA "/stall_kernels.sm_90.cubin", std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint64_t Crc(const std::vector<uint8_t>& cubin) {
  CUpti_GetCubinCrcParams params = {};
  params.size = CUpti_GetCubinCrcParamsSize;
  params.cubin = cubin.data();
  params.cubinSize = cubin.size();
  EXPECT_EQ(cuptiGetCubinCrc(&params), CUPTI_SUCCESS);
  return params.cubinCrc;
}

// The recorded cubin (testdata/README.md): every instruction of `chase` is on a line of its body
// (lines 3 to 9 of stall_kernels.cu), the pointer-chasing load's line among them.
TEST(SourceLinesTest, NamesEachInstructionAfterItsSourceLine) {
  const std::vector<uint8_t> cubin = Fixture();
  ASSERT_GT(cubin.size(), 1000u) << "missing fixture " PROTOND_GPU_TESTDATA;
  SourceLines lines(kHost);
  lines.ModuleLoaded(cubin.data(), cubin.size());
  std::set<std::string> named;
  for (uint64_t pc = 0; pc < 0x400; pc += 16) {
    named.insert(g_names.at(lines.LineNameId(Crc(cubin), "chase", pc) - 1));
  }
  EXPECT_THAT(named, Contains(HasSubstr("stall_kernels.cu:6@chase")));
  for (const std::string& name : named) {
    if (name.find('+') != std::string::npos) continue;  // past the function's end
    EXPECT_THAT(name, HasSubstr("/stall_kernels.cu:"));
    const int line = std::stoi(name.substr(name.find(".cu:") + 4));
    EXPECT_GE(line, 3) << name;
    EXPECT_LE(line, 9) << name;
  }
  EXPECT_EQ(lines.without_cubin(), 0u);
}

TEST(SourceLinesTest, AnInstructionIsNamedOnce) {
  const std::vector<uint8_t> cubin = Fixture();
  SourceLines lines(kHost);
  lines.ModuleLoaded(cubin.data(), cubin.size());
  const size_t before = g_names.size();
  const uint32_t first = lines.LineNameId(Crc(cubin), "spin", 0x40);
  EXPECT_EQ(lines.LineNameId(Crc(cubin), "spin", 0x40), first);
  EXPECT_EQ(g_names.size(), before + 1);
}

TEST(SourceLinesTest, ACubinNotSeenLoadingIsNamedByOffset) {
  SourceLines lines(kHost);
  EXPECT_EQ(g_names.at(lines.LineNameId(1234, "_Z4spinPfj", 0x1a0) - 1), "_Z4spinPfj+0x1a0");
  EXPECT_EQ(lines.without_cubin(), 1u);
}

TEST(SourceLinesTest, SendsEachSampledCubinOncePerRecordingSet) {
  const std::vector<uint8_t> cubin = Fixture();
  SourceLines lines(kHost);
  lines.ModuleLoaded(cubin.data(), cubin.size());
  g_sent.clear();
  const uint64_t crc = Crc(cubin);
  EXPECT_EQ(lines.SentCubin(crc), crc);
  EXPECT_EQ(lines.SentCubin(crc), crc);
  EXPECT_EQ(g_sent, (std::vector<std::pair<uint64_t, size_t>>{{crc, cubin.size()}}));
  // Another session started: it gets its own copy.
  g_recording_set = 2;
  EXPECT_EQ(lines.SentCubin(crc), crc);
  EXPECT_EQ(g_sent.size(), 2u);
  g_recording_set = 1;
}

TEST(SourceLinesTest, ACubinNotHeldIsNotSent) {
  SourceLines lines(kHost);
  g_sent.clear();
  EXPECT_EQ(lines.SentCubin(1234), 0u);
  EXPECT_TRUE(g_sent.empty());
}

}  // namespace
}  // namespace protond::shim::gpu
