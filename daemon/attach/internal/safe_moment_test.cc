#include "daemon/attach/internal/safe_moment.h"

#include <linux/futex.h>
#include <sys/syscall.h>

#include "gtest/gtest.h"

namespace protond::attach {
namespace {

constexpr uint64_t kProgramCode = 0x55d0c0a01000;
constexpr uint64_t kLibcCode = 0x7f1e2c030000;
constexpr uint64_t kLoaderCode = 0x7f1e2c600100;
constexpr uint64_t kNoSystemCall = ~uint64_t{0};

GlibcImage Image() {
  GlibcImage image;
  image.libc_base = 0x7f1e2c000000;
  image.libc = {{0x7f1e2c000000, 0x7f1e2c200000}};
  image.loader_or_allocator = {{0x7f1e2c600000, 0x7f1e2c630000}};
  return image;
}

user_regs_struct Stopped(uint64_t rip, uint64_t system_call) {
  user_regs_struct regs = {};
  regs.rip = rip;
  regs.orig_rax = system_call;
  return regs;
}

TEST(SafeMomentTest, ProgramCodeIsSafe) {
  EXPECT_EQ(WhyNotSafe(Stopped(kProgramCode, kNoSystemCall), Image()), "");
  // A system call the program makes itself, outside libc.
  EXPECT_EQ(WhyNotSafe(Stopped(kProgramCode, SYS_mmap), Image()), "");
}

TEST(SafeMomentTest, LibcIsSafeOnlyInABlockingSystemCall) {
  EXPECT_NE(WhyNotSafe(Stopped(kLibcCode, kNoSystemCall), Image()), "");
  EXPECT_NE(WhyNotSafe(Stopped(kLibcCode, SYS_mmap), Image()), "");  // malloc growing an arena
  EXPECT_NE(WhyNotSafe(Stopped(kLibcCode, SYS_brk), Image()), "");
  for (const uint64_t call : {SYS_read, SYS_nanosleep, SYS_clock_nanosleep, SYS_epoll_wait,
                              SYS_poll, SYS_wait4, SYS_accept4, SYS_recvmsg, SYS_pause}) {
    EXPECT_EQ(WhyNotSafe(Stopped(kLibcCode, call), Image()), "") << call;
  }
}

TEST(SafeMomentTest, AFutexWaitForALockIsUnsafe) {
  user_regs_struct regs = Stopped(kLibcCode, SYS_futex);
  regs.rsi = FUTEX_WAIT_PRIVATE;
  regs.rdx = 2;  // lll_lock: locked, with waiters
  EXPECT_EQ(WhyNotSafe(regs, Image()), "waiting for a lock (futex)");
  regs.rsi = FUTEX_LOCK_PI_PRIVATE;
  EXPECT_NE(WhyNotSafe(regs, Image()), "");
  // A condition variable, a semaphore or pthread_join.
  regs.rsi = FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME;
  regs.rdx = 2;
  EXPECT_EQ(WhyNotSafe(regs, Image()), "");
}

TEST(SafeMomentTest, ACallThatSwapsTheSignalMaskIsUnsafe) {
  EXPECT_NE(WhyNotSafe(Stopped(kProgramCode, SYS_rt_sigsuspend), Image()), "");
  user_regs_struct regs = Stopped(kLibcCode, SYS_epoll_pwait);
  regs.r8 = 0x7ffc1a000100;
  EXPECT_NE(WhyNotSafe(regs, Image()), "");
  regs.r8 = 0;  // no mask: epoll_wait
  EXPECT_EQ(WhyNotSafe(regs, Image()), "");
  regs = Stopped(kLibcCode, SYS_ppoll);
  regs.r10 = 0x7ffc1a000100;
  EXPECT_NE(WhyNotSafe(regs, Image()), "");
}

TEST(SafeMomentTest, TheLoaderIsNeverSafe) {
  EXPECT_NE(WhyNotSafe(Stopped(kLoaderCode, kNoSystemCall), Image()), "");
  EXPECT_NE(WhyNotSafe(Stopped(kLoaderCode, SYS_read), Image()), "");  // mapping a library
}

}  // namespace
}  // namespace protond::attach
