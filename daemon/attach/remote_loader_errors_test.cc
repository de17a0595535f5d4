// Each refusal and failure of remote_loader.h, and that the program runs on unharmed after it.
#include <grp.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "daemon/attach/remote_loader.h"
#include "daemon/attach/testing/targets.h"
#include "gtest/gtest.h"

namespace protond::attach {
namespace {

using testing::ExpectExit;
using testing::kEntryLibrary;
using testing::kEntryReturns;
using testing::kStaticTarget;
using testing::kTarget;
using testing::RecordPath;
using testing::StartReady;
using testing::TakeRecord;
using testing::TargetProcess;
using testing::TestLoad;

std::unique_ptr<TargetProcess> StartSleeper(const char* program = kTarget) {
  return StartReady(program, "sleep");
}

// Ends a sleeping target and checks that it ended as if nothing had happened.
void ExpectEndsNormally(TargetProcess& target) {
  kill(target.pid(), SIGTERM);
  ExpectExit(target, "sleep ok usr1=0\n");
}

void ExpectError(const absl::StatusOr<LoadResult>& result, absl::StatusCode code,
                 const std::string& part) {
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_NE(result.status().message().find(part), std::string::npos) << result.status();
}

// `load` into a sleeping `program` fails with `code` and a message holding `part`, and the
// program runs on unharmed.
void ExpectLoadFails(const char* program, const RemoteLoad& load, absl::StatusCode code,
                     const std::string& part) {
  std::unique_ptr<TargetProcess> target = StartSleeper(program);
  ASSERT_NE(target, nullptr);
  ExpectError(LoadLibraryInto(target->pid(), load), code, part);
  ExpectEndsNormally(*target);
}

TEST(RemoteLoaderErrorsTest, AProcessThatDoesNotExist) {
  std::unique_ptr<TargetProcess> gone = TargetProcess::Start(kTarget, "exit");
  ASSERT_NE(gone, nullptr);
  const pid_t pid = gone->pid();
  gone->Wait();
  ExpectError(LoadLibraryInto(pid, TestLoad(RecordPath("gone"))), absl::StatusCode::kNotFound,
              "does not exist");
}

TEST(RemoteLoaderErrorsTest, AProcessTracedAlready) {
  std::unique_ptr<TargetProcess> target = StartSleeper();
  ASSERT_NE(target, nullptr);
  ASSERT_EQ(ptrace(PTRACE_SEIZE, target->pid(), nullptr, nullptr), 0);
  ExpectError(LoadLibraryInto(target->pid(), TestLoad(RecordPath("traced"))),
              absl::StatusCode::kFailedPrecondition,
              "already traced by process " + std::to_string(getpid()));
  // PTRACE_DETACH needs a stopped tracee.
  ASSERT_EQ(ptrace(PTRACE_INTERRUPT, target->pid(), nullptr, nullptr), 0);
  ASSERT_EQ(waitpid(target->pid(), nullptr, __WALL), target->pid());
  ASSERT_EQ(ptrace(PTRACE_DETACH, target->pid(), nullptr, nullptr), 0);
  ExpectEndsNormally(*target);
}

// The loader run by nobody, on the test's (root's) process.
TEST(RemoteLoaderErrorsTest, AnotherUsersProcess) {
  if (getuid() != 0) GTEST_SKIP() << "needs root, to become another user";
  std::unique_ptr<TargetProcess> target = StartSleeper();
  ASSERT_NE(target, nullptr);
  const pid_t child = fork();
  if (child == 0) {
    constexpr uid_t kNobody = 65534;
    if (setgroups(0, nullptr) != 0 || setresgid(kNobody, kNobody, kNobody) != 0 ||
        setresuid(kNobody, kNobody, kNobody) != 0) {
      _exit(100);
    }
    _exit(static_cast<int>(
        LoadLibraryInto(target->pid(), TestLoad(RecordPath("other_user"))).status().code()));
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(WEXITSTATUS(status), static_cast<int>(absl::StatusCode::kPermissionDenied));
  ExpectEndsNormally(*target);
}

TEST(RemoteLoaderErrorsTest, AStaticallyLinkedProgram) {
  ExpectLoadFails(kStaticTarget, TestLoad(RecordPath("static")),
                  absl::StatusCode::kFailedPrecondition, "not a glibc 2.34+ program");
}

TEST(RemoteLoaderErrorsTest, AStoppedProcess) {
  std::unique_ptr<TargetProcess> target = StartSleeper();
  ASSERT_NE(target, nullptr);
  kill(target->pid(), SIGSTOP);
  siginfo_t info;
  ASSERT_EQ(waitid(P_PID, target->pid(), &info, WSTOPPED | WNOWAIT), 0);
  ExpectError(LoadLibraryInto(target->pid(), TestLoad(RecordPath("stopped"))),
              absl::StatusCode::kFailedPrecondition, "stopped");
  kill(target->pid(), SIGCONT);
  ExpectEndsNormally(*target);
}

TEST(RemoteLoaderErrorsTest, ALibraryThatDoesNotExistGivesDlerrorsText) {
  RemoteLoad load = TestLoad(RecordPath("missing"));
  load.library_path = "/nonexistent/libprotond_missing.so";
  ExpectLoadFails(kTarget, load, absl::StatusCode::kFailedPrecondition,
                  "/nonexistent/libprotond_missing.so: cannot open shared object file");
}

TEST(RemoteLoaderErrorsTest, ALibraryWithoutTheEntrySymbol) {
  RemoteLoad load = TestLoad(RecordPath("no_entry"));
  load.entry_symbol = "no_such_entry";
  ExpectLoadFails(kTarget, load, absl::StatusCode::kNotFound,
                  std::string(kEntryLibrary) + " has no entry symbol no_such_entry");
}

TEST(RemoteLoaderErrorsTest, ARequestThatCannotBeRight) {
  RemoteLoad load = TestLoad(RecordPath("bad"));
  load.library_path = "relative/lib.so";
  ExpectError(LoadLibraryInto(getppid(), load), absl::StatusCode::kInvalidArgument, "absolute");
  ExpectError(LoadLibraryInto(getpid(), TestLoad(RecordPath("self"))),
              absl::StatusCode::kInvalidArgument, "process");
}

// A program that exits at once, raced many times: the load succeeds or finds the process gone,
// never hangs, and never breaks the test.
TEST(RemoteLoaderErrorsTest, AProcessThatExitsWhileAttaching) {
  std::mt19937 random(std::random_device{}());
  int loaded = 0;
  for (int race = 0; race < 40; ++race) {
    std::unique_ptr<TargetProcess> target = TargetProcess::Start(kTarget, "exit");
    ASSERT_NE(target, nullptr);
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 3'000)(random)));
    const std::string record = RecordPath("exiting");
    const absl::StatusOr<LoadResult> result = LoadLibraryInto(target->pid(), TestLoad(record));
    if (result.ok()) {
      ++loaded;
      EXPECT_EQ(result->entry_returned, kEntryReturns);
      EXPECT_EQ(TakeRecord(record), record + "\n");
    } else {
      EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound) << result.status();
    }
    const TargetProcess::Exit exit = target->Wait();
    EXPECT_EQ(exit.output, "exit ok\n");
    // -1: the loader, tracing it when it ended, collected its exit status.
    EXPECT_TRUE(exit.status == -1 || (WIFEXITED(exit.status) && WEXITSTATUS(exit.status) == 0))
        << exit.status;
  }
  RecordProperty("loaded", loaded);
}

}  // namespace
}  // namespace protond::attach
