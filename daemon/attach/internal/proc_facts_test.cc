#include "daemon/attach/internal/proc_facts.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace protond::attach {
namespace {

constexpr char kGlibcMaps[] =
    "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1234   /usr/bin/python3.11\n"
    "7f1e2c000000-7f1e2c028000 r--p 00000000 08:01 42     "
    "/usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)\n"
    "7f1e2c028000-7f1e2c19d000 r-xp 00028000 08:01 42     "
    "/usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)\n"
    "7f1e2c400000-7f1e2c420000 r-xp 00000000 08:01 77     /usr/lib/libtcmalloc.so.4\n"
    "7f1e2c600000-7f1e2c601000 r--p 00000000 08:01 43     "
    "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
    "7ffc1a000000-7ffc1a021000 rw-p 00000000 00:00 0      [stack]\n"
    "7f1e2c700000-7f1e2c701000 rw-p 00000000 00:00 0 \n"
    "not a mapping\n";

TEST(ProcFactsTest, ParsesMapsLinesWithAndWithoutPaths) {
  const std::vector<Mapping> mappings = ParseMappings(kGlibcMaps);
  ASSERT_EQ(mappings.size(), 7u);
  EXPECT_EQ(mappings[1].range.start, 0x7f1e2c000000u);
  EXPECT_EQ(mappings[1].range.end, 0x7f1e2c028000u);
  EXPECT_EQ(mappings[1].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(mappings[2].offset, 0x28000u);
  EXPECT_EQ(mappings[5].path, "[stack]");
  EXPECT_EQ(mappings[6].path, "");
}

TEST(ProcFactsTest, FindsLibcAndTheCodeThatMayHoldLocks) {
  absl::StatusOr<GlibcImage> glibc = FindGlibc(ParseMappings(kGlibcMaps));
  ASSERT_TRUE(glibc.ok()) << glibc.status();
  EXPECT_EQ(glibc->libc_base, 0x7f1e2c000000u);
  ASSERT_EQ(glibc->libc.size(), 2u);
  EXPECT_TRUE(glibc->libc[1].Contains(0x7f1e2c19cfffu));
  ASSERT_EQ(glibc->loader_or_allocator.size(), 2u);  // tcmalloc, ld-linux
  EXPECT_TRUE(glibc->loader_or_allocator[0].Contains(0x7f1e2c400000u));
  EXPECT_FALSE(glibc->loader_or_allocator[1].Contains(0x7f1e2c601000u));
}

TEST(ProcFactsTest, NamesWhyAProcessHasNoGlibc) {
  const absl::StatusOr<GlibcImage> musl = FindGlibc(
      ParseMappings("7f0000000000-7f0000001000 r-xp 00000000 08:01 9 /lib/ld-musl-x86_64.so.1\n"));
  EXPECT_EQ(musl.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(musl.status().message().find("musl (ld-musl-x86_64.so.1 mapped)"), std::string::npos);

  const absl::StatusOr<GlibcImage> static_program =
      FindGlibc(ParseMappings("00400000-00500000 r-xp 00000000 08:01 9 /usr/bin/static_program\n"));
  EXPECT_EQ(static_program.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(static_program.status().message().find("statically linked"), std::string::npos);

  const absl::StatusOr<GlibcImage> starting = FindGlibc(ParseMappings(
      "7f0000000000-7f0000001000 r-xp 00000000 08:01 9 /lib64/ld-linux-x86-64.so.2\n"));
  EXPECT_EQ(starting.status().code(), absl::StatusCode::kUnavailable);
}

TEST(ProcFactsTest, ReadsThisProcess) {
  absl::StatusOr<ProcessStatus> status = ReadProcessStatus(getpid());
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state, 'R');
  EXPECT_EQ(status->tracer, 0);
  EXPECT_TRUE(CheckX86_64(getpid()).ok());
  EXPECT_TRUE(FindGlibc(*ReadMappings(getpid())).ok());
  EXPECT_EQ(ListThreads(getpid()).front(), getpid());
}

}  // namespace
}  // namespace protond::attach
