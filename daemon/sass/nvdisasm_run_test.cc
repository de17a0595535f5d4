// RunNvdisasm and FindNvdisasm with fake nvdisasm scripts (spawn, capture, failures, the
// temporary cubin), and with the real nvdisasm where one is installed.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/files/read_file.h"
#include "daemon/sass/sass_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::sass {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::span<const uint8_t> Bytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// Sets an environment variable for the life of the object; the old value comes back after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = getenv(name);
    if (old != nullptr) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A fresh folder for fake programs, with tmp/ in it as $TMPDIR, so that a test sees what
// RunNvdisasm leaves there.
class NvdisasmRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/protond_sass_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::filesystem::create_directory(TempDir());
    tmpdir_.emplace("TMPDIR", TempDir());
  }
  void TearDown() override {
    tmpdir_.reset();
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }

  std::string TempDir() const { return dir_ + "/tmp"; }

  // An executable `name` in the test's folder that runs `body` under /bin/sh.
  std::string Script(const std::string& name, const std::string& body, mode_t mode = 0755) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    chmod(path.c_str(), mode);
    return path;
  }

  bool TempDirIsEmpty() const { return std::filesystem::is_empty(TempDir()); }

  std::string dir_;
  std::optional<ScopedEnv> tmpdir_;
};

TEST_F(NvdisasmRunTest, PassesTheCubinInATemporaryFileAndRemovesIt) {
  // Prints its arguments, one a line, then the file it was given.
  const std::string fake = Script("nvdisasm", "printf '%s\\n' \"$@\"; cat \"$2\"\n");
  auto out = RunNvdisasm(fake, Bytes("cubin bytes"));
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<std::string> lines = absl::StrSplit(*out, '\n');
  ASSERT_EQ(lines.size(), 3u) << *out;
  EXPECT_EQ(lines[0], "-c");
  EXPECT_THAT(lines[1], StartsWith(TempDir() + "/protond_cubin_"));
  EXPECT_EQ(lines[2], "cubin bytes");
  EXPECT_TRUE(TempDirIsEmpty());
}

TEST_F(NvdisasmRunTest, FailureCarriesStderrAndRemovesTheFile) {
  const std::string fake =
      Script("nvdisasm",
             "echo \"nvdisasm fatal   : File $2 does not appear to be an Elf file\" >&2\n"
             "echo 'partial listing'\nexit 1\n");
  auto out = RunNvdisasm(fake, Bytes("not an elf"));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(std::string(out.status().message()),
              StartsWith("nvdisasm failed (exit 1): nvdisasm fatal   : File " + TempDir() +
                         "/protond_cubin_"));
  EXPECT_THAT(std::string(out.status().message()), HasSubstr(" does not appear to be an Elf file"));
  EXPECT_TRUE(TempDirIsEmpty());
}

TEST_F(NvdisasmRunTest, FailureWithoutStderr) {
  auto out = RunNvdisasm(Script("nvdisasm", "exit 3\n"), Bytes("x"));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(out.status().message(), "nvdisasm failed (exit 3)");
}

TEST_F(NvdisasmRunTest, KilledBySignal) {
  auto out = RunNvdisasm(Script("nvdisasm", "echo dying >&2; kill -9 $$\n"), Bytes("x"));
  EXPECT_EQ(out.status().message(), "nvdisasm failed (signal 9): dying");
}

TEST_F(NvdisasmRunTest, ReadsLargeStdoutAndStderrTogether) {
  // Each is far more than a pipe holds: reading one to its end before the other would hang.
  const std::string fake = Script("nvdisasm",
                                  "head -c 1048576 /dev/zero | tr '\\0' e >&2\n"
                                  "head -c 1048576 /dev/zero | tr '\\0' o\n"
                                  "head -c 1048576 /dev/zero | tr '\\0' e >&2\n");
  auto out = RunNvdisasm(fake, Bytes("x"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, std::string(1048576, 'o'));
}

TEST_F(NvdisasmRunTest, KilledWhenItRunsTooLong) {
  const auto started = std::chrono::steady_clock::now();
  auto out = RunNvdisasm(Script("nvdisasm", "echo started; exec sleep 60\n"), Bytes("x"),
                         {.timeout_ms = 200});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(out.status().message(), "nvdisasm did not finish within 200 ms");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_TRUE(TempDirIsEmpty());
}

TEST_F(NvdisasmRunTest, KilledWhenItPrintsTooMuch) {
  auto out = RunNvdisasm(Script("nvdisasm", "exec yes listing\n"), Bytes("x"),
                         {.max_output_bytes = 1 << 20});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(out.status().message(), "nvdisasm printed more than 1048576 bytes");
  EXPECT_TRUE(TempDirIsEmpty());
}

TEST_F(NvdisasmRunTest, MissingProgram) {
  const std::string missing = dir_ + "/no-nvdisasm";
  auto out = RunNvdisasm(missing, Bytes("x"));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(out.status().message(), "cannot run " + missing + ": No such file or directory");
  EXPECT_TRUE(TempDirIsEmpty());
}

TEST_F(NvdisasmRunTest, ProgramNotExecutable) {
  const std::string fake = Script("nvdisasm", "exit 0\n", 0644);
  auto out = RunNvdisasm(fake, Bytes("x"));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(out.status().message(), "cannot run " + fake + ": Permission denied");
}

TEST_F(NvdisasmRunTest, MissingTemporaryFolder) {
  ScopedEnv tmpdir("TMPDIR", dir_ + "/gone");
  auto out = RunNvdisasm(Script("nvdisasm", "exit 0\n"), Bytes("x"));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(out.status().message(), "cannot create a temporary file for the cubin in " + dir_ +
                                        "/gone: No such file or directory");
}

TEST_F(NvdisasmRunTest, FindPrefersProtondNvdisasm) {
  const std::string fake = Script("my-nvdisasm", "exit 0\n");
  ScopedEnv chosen("PROTOND_NVDISASM", fake);
  EXPECT_EQ(FindNvdisasm(), fake);
}

TEST_F(NvdisasmRunTest, FindSkipsANonExecutableChoiceForPath) {
  ScopedEnv chosen("PROTOND_NVDISASM", Script("not-executable", "exit 0\n", 0644));
  std::filesystem::create_directory(dir_ + "/bin");
  const std::string on_path = Script("bin/nvdisasm", "exit 0\n");
  // An empty entry (the current folder) and a folder without nvdisasm come first.
  ScopedEnv path("PATH", "::" + dir_ + ":" + dir_ + "/bin");
  EXPECT_EQ(FindNvdisasm(), on_path);
}

TEST_F(NvdisasmRunTest, FindFallsBackToTheCudaToolkit) {
  ScopedEnv chosen("PROTOND_NVDISASM", "");
  ScopedEnv path("PATH", dir_);
  const std::string cuda = "/usr/local/cuda/bin/nvdisasm";
  if (access(cuda.c_str(), X_OK) == 0) {
    EXPECT_EQ(FindNvdisasm(), cuda);
  } else {
    EXPECT_EQ(FindNvdisasm(), std::nullopt);
  }
}

// The real nvdisasm, wherever FindNvdisasm finds it.
class RealNvdisasmTest : public NvdisasmRunTest {
 protected:
  void SetUp() override {
    NvdisasmRunTest::SetUp();
    nvdisasm_ = FindNvdisasm();
    if (!nvdisasm_) {
      GTEST_SKIP() << "no nvdisasm here: set PROTOND_NVDISASM, put it on PATH or install the "
                      "CUDA toolkit in /usr/local/cuda";
    }
  }

  std::optional<std::string> nvdisasm_;
};

TEST_F(RealNvdisasmTest, DisassemblesComputeBlocks) {
  auto cubin = files::ReadWholeFile(PROTOND_SASS_TESTDATA "/compute_blocks.cubin", "cubin");
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  auto listing = RunNvdisasm(*nvdisasm_, Bytes(*cubin));
  ASSERT_TRUE(listing.ok()) << listing.status();
  auto instructions = ParseNvdisasm(*listing, "compute_blocks");
  ASSERT_TRUE(instructions.ok()) << instructions.status();
  EXPECT_EQ(instructions->size(), 456u);
  EXPECT_EQ(instructions->at(0x0140), "@P2 BRA `(.L_x_1)");
  EXPECT_EQ(instructions->at(0x0520), "LDG.E R15, desc[UR4][R8.64]");
  EXPECT_TRUE(TempDirIsEmpty());
}

TEST_F(RealNvdisasmTest, RefusesANonElfFile) {
  // nvdisasm 13.0 says "Object file F appears truncated" of a file shorter than an ELF header,
  // and "File F does not appear to be an Elf file" of others; both name the file, and exit 1.
  auto listing = RunNvdisasm(*nvdisasm_, Bytes(std::string(4096, 'x')));
  EXPECT_EQ(listing.status().code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(std::string(listing.status().message()),
              StartsWith("nvdisasm failed (exit 1): nvdisasm fatal   : "));
  EXPECT_THAT(std::string(listing.status().message()), HasSubstr(TempDir() + "/protond_cubin_"));
  EXPECT_TRUE(TempDirIsEmpty());
}

}  // namespace
}  // namespace protond::sass
