// InstructionTexts with a fake nvdisasm that prints a real listing (compute_blocks, CUDA 13.0).
#include "daemon/query/instruction_text.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::query {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

store::NodeRow Node(uint32_t id, uint32_t parent, std::string name, uint64_t cubin_crc = 0,
                    store::NodeKind kind = store::NodeKind::kInstruction) {
  return {.session_id = 1,
          .node_id = id,
          .parent_id = parent,
          .name = std::move(name),
          .kind = kind,
          .cubin_crc = cubin_crc};
}

// compute_blocks, with a line and four sampled instructions: two of cubin 7, one whose cubin
// the shim did not hold (0), one of a cubin that was never stored (9).
store::StoredTree SampledTree() {
  store::StoredTree stored;
  stored.nodes = {Node(1, 0, "compute_blocks", 0, store::NodeKind::kFrame),
                  Node(2, 1, "/src/k.cu:12@compute_blocks", 0, store::NodeKind::kFrame),
                  Node(3, 2, "0x0140", 7),
                  Node(4, 2, "0x0520", 7),
                  Node(5, 2, "0x0100", 0),
                  Node(6, 2, "0x0150", 9)};
  return stored;
}

std::vector<std::string> Names(const store::StoredTree& stored) {
  std::vector<std::string> names;
  for (const store::NodeRow& row : stored.nodes) names.push_back(row.name);
  return names;
}

class InstructionTextsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/protond_text_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    fake_ = dir_ + "/nvdisasm";
    std::ofstream(fake_) << "#!/bin/sh\necho run >> " << dir_ << "/runs\ncat "
                         << PROTOND_SASS_TESTDATA "/compute_blocks.c.txt\n";
    chmod(fake_.c_str(), 0755);
    const char* old = getenv("PROTOND_NVDISASM");
    if (old != nullptr) old_nvdisasm_ = old;
    setenv("PROTOND_NVDISASM", fake_.c_str(), 1);
  }
  void TearDown() override {
    setenv("PROTOND_NVDISASM", old_nvdisasm_.c_str(), 1);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  int Runs() const {
    std::ifstream in(dir_ + "/runs");
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
  }

  std::string dir_;
  std::string fake_;
  std::string old_nvdisasm_;
};

TEST(SampledFunctionTest, ComesFromTheLineName) {
  EXPECT_EQ(SampledFunction("/src/k.py:42@matmul_kernel"), "matmul_kernel");
  EXPECT_EQ(SampledFunction("k.py:42@matmul_kernel"), "matmul_kernel");
  EXPECT_EQ(SampledFunction("_Z4spinPfj+0x1a0"), "_Z4spinPfj");
}

TEST_F(InstructionTextsTest, NamesEachInstructionByItsText) {
  InstructionTexts texts;
  store::StoredTree stored = SampledTree();
  std::vector<CubinWork> work = texts.Missing(stored);
  ASSERT_EQ(work.size(), 2u);
  EXPECT_EQ(work[0].crc, 7u);
  EXPECT_THAT(work[0].functions, ElementsAre("compute_blocks"));
  EXPECT_EQ(work[1].crc, 9u);
  work[0].cubin =
      "\x7f"
      "ELF";  // the fake prints its listing whatever it is given
  texts.Learn(work);
  EXPECT_THAT(texts.Name(stored),
              ElementsAre("1 instruction without SASS text: the shim did not hold their cubin (the "
                          "module loaded before sampling began, as after protonctl start --pid)",
                          "1 instruction without SASS text: their cubin never reached protond (a "
                          "full lane?)"));
  EXPECT_THAT(
      Names(stored),
      ElementsAre("compute_blocks", "/src/k.cu:12@compute_blocks", "0x0140  @P2 BRA `(.L_x_1)",
                  "0x0520  LDG.E R15, desc[UR4][R8.64]", "0x0100", "0x0150"));
  EXPECT_EQ(Runs(), 1);
}

TEST_F(InstructionTextsTest, ReadsEachOfManyCubinsOnce) {
  InstructionTexts texts;
  store::StoredTree stored;
  stored.nodes = {Node(1, 0, "compute_blocks", 0, store::NodeKind::kFrame),
                  Node(2, 1, "k.cu:12@compute_blocks", 0, store::NodeKind::kFrame)};
  for (uint32_t crc = 1; crc <= 6; ++crc) {
    stored.nodes.push_back(Node(2 + crc, 2, crc % 2 == 0 ? "0x0140" : "0x0520", crc));
  }
  std::vector<CubinWork> work = texts.Missing(stored);
  ASSERT_EQ(work.size(), 6u);
  for (CubinWork& item : work) item.cubin = "cubin";
  texts.Learn(work);
  EXPECT_THAT(texts.Name(stored), IsEmpty());
  for (size_t i = 2; i < stored.nodes.size(); ++i) {
    EXPECT_THAT(stored.nodes[i].name, ::testing::AnyOf("0x0140  @P2 BRA `(.L_x_1)",
                                                       "0x0520  LDG.E R15, desc[UR4][R8.64]"));
  }
  EXPECT_EQ(Runs(), 6);
}

TEST_F(InstructionTextsTest, KeepsWhatItLearntForTheNextQuery) {
  InstructionTexts texts;
  store::StoredTree first = SampledTree();
  std::vector<CubinWork> work = texts.Missing(first);
  work[0].cubin = "cubin";
  texts.Learn(work);
  store::StoredTree second = SampledTree();
  EXPECT_THAT(texts.Missing(second), IsEmpty());
  texts.Learn({});
  texts.Name(second);
  EXPECT_EQ(second.nodes[3].name, "0x0520  LDG.E R15, desc[UR4][R8.64]");
  EXPECT_EQ(Runs(), 1);
}

TEST_F(InstructionTextsTest, AFunctionTheListingLacksIsSaid) {
  InstructionTexts texts;
  store::StoredTree stored;
  stored.nodes = {Node(1, 0, "other", 0, store::NodeKind::kFrame),
                  Node(2, 1, "other+0x10", 0, store::NodeKind::kFrame), Node(3, 2, "0x0010", 7)};
  std::vector<CubinWork> work = texts.Missing(stored);
  work[0].cubin = "cubin";
  texts.Learn(work);
  const std::vector<std::string> notes = texts.Name(stored);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], ::testing::StartsWith("1 instruction without SASS text: "));
  EXPECT_THAT(notes[0], ::testing::HasSubstr("compute_blocks"));  // what the listing has
  EXPECT_EQ(stored.nodes[2].name, "0x0010");
}

TEST_F(InstructionTextsTest, WithoutNvdisasmItSaysSoAndTriesAgainLater) {
  if (access("/usr/local/cuda/bin/nvdisasm", X_OK) == 0) {
    GTEST_SKIP() << "the CUDA toolkit's nvdisasm is installed here";
  }
  setenv("PROTOND_NVDISASM", (dir_ + "/none").c_str(), 1);
  const char* path = getenv("PATH");
  const std::string old_path = path != nullptr ? path : "";
  setenv("PATH", dir_.c_str(), 1);
  std::filesystem::rename(fake_, dir_ + "/hidden");
  InstructionTexts texts;
  store::StoredTree stored = SampledTree();
  std::vector<CubinWork> work = texts.Missing(stored);
  texts.Learn(work);
  EXPECT_THAT(texts.Name(stored),
              ElementsAre("3 instructions without SASS text: protond found no nvdisasm (set "
                          "PROTOND_NVDISASM, or put the CUDA toolkit's bin on protond's PATH)",
                          "1 instruction without SASS text: the shim did not hold their cubin (the "
                          "module loaded before sampling began, as after protonctl start --pid)"));
  EXPECT_EQ(texts.Missing(stored).size(), 2u);  // nothing was kept
  setenv("PATH", old_path.c_str(), 1);
}

}  // namespace
}  // namespace protond::query
