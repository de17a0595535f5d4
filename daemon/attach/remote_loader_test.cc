// The loader against real programs, stopped at random moments: each load must succeed, run ENTRY
// with its argument, and leave the program to end as it would have (testing/attach_target.cc
// checks its registers, errno and interrupted system calls itself).
#include "daemon/attach/remote_loader.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "daemon/attach/testing/targets.h"
#include "gtest/gtest.h"

namespace protond::attach {
namespace {

using testing::ExpectExit;
using testing::kEntryReturns;
using testing::kTarget;
using testing::RecordPath;
using testing::StartReady;
using testing::TakeRecord;
using testing::TargetProcess;
using testing::TestLoad;

struct Kind {
  const char* mode;
  int loads;
};

// 100 loads in all; the malloc mode's stops fall mostly in malloc, the fork mode's mostly in fork
// or wait4.
constexpr Kind kKinds[] = {{"busy", 20},  {"read", 15},   {"futex", 15},
                           {"sleep", 15}, {"malloc", 20}, {"fork", 15}};

class RandomMomentTest : public ::testing::TestWithParam<Kind> {};

TEST_P(RandomMomentTest, LoadsAndLeavesTheProgramAsItWas) {
  const Kind kind = GetParam();
  std::mt19937 random(std::random_device{}());
  for (int load_number = 0; load_number < kind.loads; ++load_number) {
    SCOPED_TRACE(::testing::Message() << kind.mode << " load " << load_number);
    std::unique_ptr<TargetProcess> target = StartReady(kTarget, kind.mode);
    ASSERT_NE(target, nullptr);
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 20'000)(random)));
    const std::string record = RecordPath(kind.mode);
    const RemoteLoad load = TestLoad(record, "|signal");

    const absl::StatusOr<LoadResult> result = LoadLibraryInto(target->pid(), load);

    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->entry_returned, kEntryReturns);
    EXPECT_EQ(TakeRecord(record), load.entry_argument + "\n");
    if (absl::string_view(kind.mode) == "read") {
      target->WriteStdin("some input");
      target->CloseStdin();
    } else {
      kill(target->pid(), SIGTERM);
    }
    const std::string read_line = absl::string_view(kind.mode) == "read" ? "read some input\n" : "";
    // usr1=1: the SIGUSR1 that ENTRY sent its own thread, held back, then handled by the program.
    ExpectExit(*target, read_line + kind.mode + " ok usr1=1\n");
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, RandomMomentTest, ::testing::ValuesIn(kKinds),
                         [](const ::testing::TestParamInfo<Kind>& info) {
                           return std::string(info.param.mode);
                         });

TEST(RemoteLoaderTest, AReadOnAPipeGoesOnAfterTheCalls) {
  std::unique_ptr<TargetProcess> target = StartReady(kTarget, "read");
  ASSERT_NE(target, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // well inside read by now
  const std::string record = RecordPath("read");

  const absl::StatusOr<LoadResult> result = LoadLibraryInto(target->pid(), TestLoad(record));

  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->thread, target->pid());
  EXPECT_EQ(result->safe_point_tries, 1);  // a blocking read is a safe moment at once
  EXPECT_EQ(TakeRecord(record), record + "\n");
  target->WriteStdin("written after the load");
  target->CloseStdin();
  ExpectExit(*target, "read written after the load\nread ok usr1=0\n");
}

// SIGSTOP cannot be blocked: the loader takes it from the thread during the calls and sends it
// again after them, so the program stops then, and goes on at SIGCONT as if stopped at any time.
TEST(RemoteLoaderTest, ASigstopDuringTheCallsStopsTheProgramAfterThem) {
  std::unique_ptr<TargetProcess> target = StartReady(kTarget, "sleep");
  ASSERT_NE(target, nullptr);
  const std::string record = RecordPath("stop");

  const absl::StatusOr<LoadResult> result =
      LoadLibraryInto(target->pid(), TestLoad(record, "|stop"));

  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(TakeRecord(record), record + "|stop\n");
  siginfo_t stopped = {};
  for (int wait = 0; wait < 500 && stopped.si_pid == 0; ++wait) {
    ASSERT_EQ(waitid(P_PID, target->pid(), &stopped, WSTOPPED | WNOHANG), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(stopped.si_code, CLD_STOPPED);
  EXPECT_EQ(stopped.si_status, SIGSTOP);
  kill(target->pid(), SIGCONT);
  kill(target->pid(), SIGTERM);
  ExpectExit(*target, "sleep ok usr1=0\n");
}

TEST(RemoteLoaderTest, ASecondLoadOfTheSameLibraryCallsEntryAgain) {
  std::unique_ptr<TargetProcess> target = StartReady(kTarget, "sleep");
  ASSERT_NE(target, nullptr);
  const std::string record = RecordPath("twice");
  for (int load = 0; load < 2; ++load) {
    const absl::StatusOr<LoadResult> result = LoadLibraryInto(target->pid(), TestLoad(record));
    ASSERT_TRUE(result.ok()) << result.status();
  }
  EXPECT_EQ(TakeRecord(record), record + "\n" + record + "\n");
  kill(target->pid(), SIGTERM);
  ExpectExit(*target, "sleep ok usr1=0\n");
}

}  // namespace
}  // namespace protond::attach
