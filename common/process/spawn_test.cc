#include "common/process/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::process {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

int WaitForExitCode(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// What `argv` prints on stdout (stderr too when `both`), and its exit code.
struct Output {
  std::string text;
  int exit_code = -1;
};
Output RunAndRead(const std::vector<std::string>& argv, SpawnOptions options, bool both = false) {
  int fds[2];
  EXPECT_EQ(pipe2(fds, O_CLOEXEC), 0);
  options.stdout_fd = fds[1];
  if (both) options.stderr_fd = fds[1];
  absl::StatusOr<pid_t> pid = Spawn(argv, options);
  close(fds[1]);
  Output output;
  if (!pid.ok()) {
    ADD_FAILURE() << pid.status();
    close(fds[0]);
    return output;
  }
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;) output.text.append(buffer, n);
  close(fds[0]);
  output.exit_code = WaitForExitCode(*pid);
  return output;
}

// The hexadecimal mask of a /proc/PID/status line ("SigIgn:\t...") of a child.
std::string StatusLine(const std::string& status, const std::string& name) {
  std::istringstream lines(status);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(name + ":\t")) return line.substr(name.size() + 2);
  }
  return "(no " + name + ")";
}

// Options with one field set (designated initializers would warn of the fields left out).
template <typename T, typename V>
SpawnOptions With(T SpawnOptions::*field, V value) {
  SpawnOptions options;
  options.*field = value;
  return options;
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/spawn_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { ASSERT_EQ(system(("rm -rf " + dir_).c_str()), 0); }
  std::string dir_;
};

TEST(SpawnTest, PassesArgumentsAndExitCode) {
  const Output output = RunAndRead({"/bin/sh", "-c", "echo \"$0 $1\"; exit 3", "a", "b c"}, {});
  EXPECT_EQ(output.text, "a b c\n");
  EXPECT_EQ(output.exit_code, 3);
}

TEST(SpawnTest, StderrGoesWhereItIsSent) {
  const Output output = RunAndRead({"/bin/sh", "-c", "echo out; echo err >&2"}, {}, true);
  EXPECT_EQ(output.text, "out\nerr\n");
}

TEST(SpawnTest, StdinFromDevNull) {
  const Output output = RunAndRead({"/bin/cat"}, With(&SpawnOptions::stdin_from_dev_null, true));
  EXPECT_EQ(output.text, "");
  EXPECT_EQ(output.exit_code, 0);
}

TEST(SpawnTest, ClosesOtherDescriptorsOnlyWhenAsked) {
  const int inherited = open("/dev/null", O_RDONLY);  // not close-on-exec
  ASSERT_GE(inherited, 3);
  const std::string check = "test -e /proc/self/fd/" + std::to_string(inherited) + " && echo open";
  EXPECT_EQ(RunAndRead({"/bin/sh", "-c", check}, {}).text, "open\n");
  EXPECT_EQ(RunAndRead({"/bin/sh", "-c", check}, With(&SpawnOptions::close_other_fds, true)).text,
            "");
  close(inherited);
}

TEST(SpawnTest, DefaultSignalsResetsMaskAndIgnoredSignals) {
  sigset_t blocked, old_mask;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &blocked, &old_mask), 0);
  const auto old_pipe = signal(SIGPIPE, SIG_IGN);
  const std::string inherited = RunAndRead({"/bin/cat", "/proc/self/status"}, {}).text;
  const std::string reset =
      RunAndRead({"/bin/cat", "/proc/self/status"}, With(&SpawnOptions::default_signals, true))
          .text;
  signal(SIGPIPE, old_pipe);
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  // SIGPIPE is 13, bit 12; SIGTERM is 15, bit 14.
  EXPECT_EQ(std::stoull(StatusLine(inherited, "SigBlk"), nullptr, 16) & (1ull << 14), 1ull << 14);
  EXPECT_EQ(std::stoull(StatusLine(inherited, "SigIgn"), nullptr, 16) & (1ull << 12), 1ull << 12);
  EXPECT_EQ(StatusLine(reset, "SigBlk"), "0000000000000000");
  // glibc keeps its own two real-time signals (32, 33) ignored: only SIGPIPE's bit is ours.
  EXPECT_EQ(std::stoull(StatusLine(reset, "SigIgn"), nullptr, 16) & (1ull << 12), 0u);
}

TEST(SpawnTest, NewSession) {
  // /proc/self/stat: "pid (comm) state ppid pgrp session ...".
  const std::string stat =
      RunAndRead({"/bin/cat", "/proc/self/stat"}, With(&SpawnOptions::new_session, true)).text;
  std::istringstream fields(stat);
  std::string pid, comm, state, ppid, group, session;
  fields >> pid >> comm >> state >> ppid >> group >> session;
  EXPECT_EQ(session, pid);
  EXPECT_EQ(group, pid);
}

TEST(SpawnTest, EnvironmentIsTheOneGiven) {
  Environment environment;
  environment.Set("A", "1");
  environment.Set("B", "2");
  const Output output = RunAndRead({"/usr/bin/env"}, With(&SpawnOptions::environment, environment));
  EXPECT_EQ(output.text, "A=1\nB=2\n");
}

TEST(EnvironmentTest, SetReplacesInPlaceUnsetRemovesAll) {
  Environment environment;
  environment.Set("PATH", "/bin");
  environment.Set("A", "1");
  environment.Set("AB", "x");
  environment.Set("PATH", "/usr/bin:/bin");
  EXPECT_THAT(environment.entries(), ElementsAre("PATH=/usr/bin:/bin", "A=1", "AB=x"));
  EXPECT_EQ(environment.Get("A"), "1");
  EXPECT_EQ(environment.Get("B"), std::nullopt);
  environment.Unset("A");
  EXPECT_THAT(environment.entries(), ElementsAre("PATH=/usr/bin:/bin", "AB=x"));
}

TEST(EnvironmentTest, OfThisProcessHasThisProcesssVariables) {
  setenv("PROTOND_SPAWN_TEST", "yes", 1);
  EXPECT_EQ(Environment::OfThisProcess().Get("PROTOND_SPAWN_TEST"), "yes");
  unsetenv("PROTOND_SPAWN_TEST");
}

TEST(SpawnTest, SearchesPathOnlyWhenAsked) {
  EXPECT_EQ(RunAndRead({"sh", "-c", "exit 4"}, With(&SpawnOptions::search_path, true)).exit_code,
            4);
  const absl::StatusOr<pid_t> bare = Spawn({"sh", "-c", "exit 4"}, {});
  EXPECT_FALSE(bare.ok());
}

TEST(SpawnTest, ErrorNamesTheProgram) {
  const absl::StatusOr<pid_t> pid = Spawn({"/nonexistent/program"}, {});
  ASSERT_FALSE(pid.ok());
  EXPECT_TRUE(absl::IsNotFound(pid.status()));
  EXPECT_EQ(pid.status().message(), "cannot run /nonexistent/program: No such file or directory");
}

TEST_F(TempDir, OutputFileIsAppendedToAndPrivate) {
  const std::string log = dir_ + "/out.log";
  for (const char* word : {"one", "two"}) {
    absl::StatusOr<pid_t> pid =
        Spawn({"/bin/sh", "-c", std::string("echo ") + word + "; echo e >&2"},
              With(&SpawnOptions::output_file, log));
    ASSERT_TRUE(pid.ok()) << pid.status();
    EXPECT_EQ(WaitForExitCode(*pid), 0);
  }
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "one\ne\ntwo\ne\n");
  struct stat file;
  ASSERT_EQ(stat(log.c_str(), &file), 0);
  EXPECT_EQ(file.st_mode & 0777, 0600u);
}

TEST_F(TempDir, OutputFileThatCannotBeOpenedNamesTheProgram) {
  const absl::StatusOr<pid_t> pid =
      Spawn({"/bin/true"}, With(&SpawnOptions::output_file, dir_ + "/missing/out.log"));
  ASSERT_FALSE(pid.ok());
  EXPECT_THAT(pid.status().message(), HasSubstr("cannot run /bin/true: "));
}

TEST_F(TempDir, ScriptWithoutInterpreterLineRunsWithShellAsExecvpDoes) {
  const std::string script = dir_ + "/script";
  std::ofstream(script) << "echo \"script $0 $1\"\n";
  ASSERT_EQ(chmod(script.c_str(), 0700), 0);
  EXPECT_EQ(RunAndRead({script, "x"}, With(&SpawnOptions::search_path, true)).text,
            "script " + script + " x\n");
  EXPECT_FALSE(Spawn({script, "x"}, {}).ok());
}

}  // namespace
}  // namespace protond::process
