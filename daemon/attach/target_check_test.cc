#include "daemon/attach/target_check.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::attach {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A process of user 1000, as /proc would describe it, that anyone of that user may trace.
TargetState UserProcess() {
  TargetState target;
  target.pid = 999999;
  target.real_uid = target.effective_uid = target.saved_uid = 1000;
  target.glibc = true;
  return target;
}

// A caller that is no process here.
constexpr Caller kUser1000{.pid = 0x3fffffff, .uid = 1000};

TEST(ReadTargetStateTest, DescribesThisProcess) {
  TargetState self;
  ASSERT_TRUE(ReadTargetState(getpid(), &self));
  EXPECT_EQ(self.pid, getpid());
  EXPECT_EQ(self.real_uid, getuid());
  EXPECT_EQ(self.effective_uid, geteuid());
  EXPECT_EQ(self.tracer, 0);
  EXPECT_TRUE(self.glibc);
  EXPECT_TRUE(self.dumpable);
  EXPECT_FALSE(self.cuda);
  EXPECT_THAT(self.shim_mapped, IsEmpty());
  EXPECT_THAT(self.command, HasSubstr("protond_daemon_attach_test"));
}

TEST(ReadTargetStateTest, NoSuchProcess) {
  TargetState state;
  EXPECT_FALSE(ReadTargetState(0x3fffffff, &state));
  EXPECT_FALSE(ReadTargetState(0, &state));
}

TEST(WhyCallerMayNotTraceTest, SameUserMayWithoutYamaOrAtScopeZero) {
  EXPECT_THAT(WhyCallerMayNotTrace(kUser1000, UserProcess(), -1), IsEmpty());
  EXPECT_THAT(WhyCallerMayNotTrace(kUser1000, UserProcess(), 0), IsEmpty());
}

TEST(WhyCallerMayNotTraceTest, AnotherUserOnAnyOfTheThreeUidsMayNot) {
  for (uid_t TargetState::*uid :
       {&TargetState::real_uid, &TargetState::effective_uid, &TargetState::saved_uid}) {
    TargetState target = UserProcess();
    target.*uid = 1001;
    EXPECT_THAT(WhyCallerMayNotTrace(kUser1000, target, 0), HasSubstr("another user's process"));
  }
}

TEST(WhyCallerMayNotTraceTest, RootMayTraceAnyoneButNotWithScopeThree) {
  TargetState target = UserProcess();
  target.dumpable = false;
  const Caller root = CallerOf(0x3fffffff, 0);
  ASSERT_TRUE(root.privileged);
  EXPECT_THAT(WhyCallerMayNotTrace(root, target, 2), IsEmpty());
  EXPECT_THAT(WhyCallerMayNotTrace(root, target, 3), HasSubstr("ptrace_scope is 3"));
}

TEST(WhyCallerMayNotTraceTest, NotDumpableAndYamaScopesRefuseAUser) {
  TargetState target = UserProcess();
  target.dumpable = false;
  EXPECT_THAT(WhyCallerMayNotTrace(kUser1000, target, 0), HasSubstr("not dumpable"));
  EXPECT_THAT(WhyCallerMayNotTrace(kUser1000, UserProcess(), 2), HasSubstr("ptrace_scope is 2"));
  EXPECT_THAT(WhyCallerMayNotTrace(kUser1000, UserProcess(), 1),
              HasSubstr("only to its own descendants"));
}

TEST(WhyCallerMayNotTraceTest, ScopeOneLetsAnAncestorTrace) {
  TargetState self;
  ASSERT_TRUE(ReadTargetState(getpid(), &self));
  self.real_uid = self.effective_uid = self.saved_uid = 1000;
  const Caller parent{.pid = getppid(), .uid = 1000};
  EXPECT_THAT(WhyCallerMayNotTrace(parent, self, 1), IsEmpty());
  EXPECT_THAT(WhyCallerMayNotTrace(kUser1000, self, 1), HasSubstr("descendants"));
}

TEST(CallerOfTest, AUserIsPrivilegedOnlyWithCapSysPtrace) {
  EXPECT_TRUE(CallerOf(getpid(), 0).privileged);
  EXPECT_FALSE(CallerOf(0x3fffffff, 1000).privileged);  // no process: no capability
  // This test's own capabilities decide for a caller of another uid that is this process.
  EXPECT_EQ(CallerOf(getpid(), 1000).privileged, getuid() == 0);
}

TEST(WhyShimCannotLoadTest, EachStateOfTheProcessIsNamed) {
  const std::string here = std::filesystem::read_symlink("/proc/self/exe").string();
  TargetState self;
  ASSERT_TRUE(ReadTargetState(getpid(), &self));
  EXPECT_THAT(WhyShimCannotLoad(self, here), IsEmpty());

  TargetState traced = self;
  traced.tracer = 42;
  EXPECT_THAT(WhyShimCannotLoad(traced, here), HasSubstr("already traced by process 42"));
  TargetState musl = self;
  musl.glibc = false;
  EXPECT_THAT(WhyShimCannotLoad(musl, here), HasSubstr("not a glibc program"));
  TargetState loaded = self;
  loaded.shim_mapped = "/opt/old/libprotond_shim.so";
  EXPECT_THAT(WhyShimCannotLoad(loaded, here),
              HasSubstr("shim is loaded (/opt/old/libprotond_shim.so) but not connected"));
  EXPECT_THAT(WhyShimCannotLoad(self, "/nonexistent/libprotond_shim.so"),
              HasSubstr("missing at /nonexistent/libprotond_shim.so"));
}

TEST(WhyShimCannotLoadTest, AnotherFileAtThatPathInTheProcessFilesystemIsRefused) {
  // A process whose root is not ours (a container) sees other files at the same path; a pid
  // whose /proc/PID/root cannot be read stands for it here.
  const std::string here = std::filesystem::read_symlink("/proc/self/exe").string();
  TargetState gone = UserProcess();
  EXPECT_THAT(WhyShimCannotLoad(gone, here), HasSubstr("another mount namespace"));
}

TEST(SameLibraryTest, TheSameFileOrACopyButNotAnotherFile) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("same_library_test." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string ours = (dir / "ours.so").string();
  std::ofstream(ours) << "ELF and the rest of the library";
  std::filesystem::copy_file(ours, dir / "copy.so");
  std::ofstream((dir / "other.so").string()) << "ELF and the rest of the librarx";
  std::filesystem::create_symlink(ours, dir / "link.so");
  EXPECT_TRUE(SameLibrary(ours, ours));
  EXPECT_TRUE(SameLibrary(ours, (dir / "link.so").string()));
  EXPECT_TRUE(SameLibrary(ours, (dir / "copy.so").string()));
  EXPECT_FALSE(SameLibrary(ours, (dir / "other.so").string()));
  EXPECT_FALSE(SameLibrary(ours, (dir / "none.so").string()));
  // A FIFO where the library should be neither blocks nor passes.
  const std::string fifo = (dir / "fifo.so").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(SameLibrary(ours, fifo));
  std::filesystem::remove_all(dir);
}

TEST(ProcessesWithCudaMappedTest, FindsAProcessByItsMappedLibcuda) {
  EXPECT_FALSE(std::ranges::binary_search(ProcessesWithCudaMapped(), getpid()));
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("target_check_test." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string fake = (dir / "libcuda.so.1").string();
  std::ofstream(fake) << std::string(4096, 'x');
  const int fd = open(fake.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void* mapped = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  EXPECT_TRUE(std::ranges::binary_search(ProcessesWithCudaMapped(), getpid()));
  TargetState self;
  ASSERT_TRUE(ReadTargetState(getpid(), &self));
  EXPECT_TRUE(self.cuda);
  munmap(mapped, 4096);
  close(fd);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace protond::attach
