// protond over TCP (`--listen`) against a real daemon on loopback: TLS with a certificate made
// for the test (openssl), tokens from a tokens file, and protonctl --host. What a wrong, expired
// or missing token, a client without TLS and an unsafe --insecure get.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kRootToken[] = "root-token-0123456789abcdef";
constexpr char kJobToken[] = "job-77-token-0123456789abcdef";
constexpr char kExpiredToken[] = "expired-token-0123456789abcdef";

class RemoteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MakeLoopbackCertificate(dir_);
    WritePrivate("tokens", std::string(kRootToken) + " root\n" + kJobToken + " 0 jobs=77\n" +
                               kExpiredToken + " root expires=2020-01-01T00:00:00Z\n");
    for (const char* token : {kRootToken, kJobToken, kExpiredToken}) {
      WritePrivate(token, std::string(token) + "\n");
    }
    WritePrivate("unknown", "unknown-token-0123456789abcdef\n");
  }

  void WritePrivate(const std::string& name, const std::string& text) {
    WritePrivateFile(dir_ + "/" + name, text);
  }

  // Starts the daemon with TLS on a free loopback port.
  void StartWithTls() {
    daemon_.Start({"--listen", "127.0.0.1:0", "--tls-cert", dir_ + "/cert.pem", "--tls-key",
                   dir_ + "/key.pem", "--tokens", dir_ + "/tokens"});
    ReadPort();
  }

  // The daemon's TCP port, from its log (written before its socket answers).
  void ReadPort() {
    port_ = daemon_.LoggedPort(", port ");
    ASSERT_NE(port_, 0) << ReadFile(daemon_.log_path());
  }

  // protonctl --host on the daemon's port with `token_file` (a file in dir_), then `args`.
  Completed Remote(const std::string& token_file, std::vector<std::string> args,
                   const std::string& host = "127.0.0.1") {
    std::vector<std::string> argv = {BinDir() + "/protonctl",
                                     "--host",
                                     host + ":" + std::to_string(port_),
                                     "--token-file",
                                     dir_ + "/" + token_file,
                                     "--tls-ca",
                                     dir_ + "/cert.pem"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunToEnd(argv, dir_);
  }

  // The sample workload with the shim and no session, as a task of Slurm job `job`.
  pid_t SpawnIdleTask(const std::string& job) {
    return Spawn({BinDir() + "/sample_workload", "--steps", "400", "--step-ms", "10"}, dir_,
                 {{{"LD_PRELOAD", BinDir() + "/libprotond_shim.so"},
                   {"PROTOND_SOCKET", daemon_.socket()},
                   {"SLURM_JOB_ID", job}}});
  }

  // Until `pid` is listed by `processes` over TCP with the root token.
  bool WaitListed(pid_t pid) {
    for (int i = 0; i < 100; ++i) {
      if (Remote(kRootToken, {"processes"}).out.find("\n" + std::to_string(pid) + " ") !=
          std::string::npos) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
  int port_ = 0;
};

TEST_F(RemoteTest, AJobIsStartedStoppedAndReadOverTls) {
  StartWithTls();
  const pid_t task = SpawnIdleTask("77");
  ASSERT_TRUE(WaitListed(task));
  const Completed start = Remote(kJobToken, {"start", "--job", "77", "--name", "remote"});
  ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
  EXPECT_THAT(start.out, HasSubstr("session 1 (remote): recording 1 of 1 process"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const Completed stop = Remote(kJobToken, {"stop", "--session", "1"});
  ASSERT_EQ(stop.exit_code, 0) << stop.err;
  EXPECT_THAT(stop.out, HasSubstr("session 1 stopped"));
  const Completed tree = Remote(kJobToken, {"tree", "1", "-m", "count"});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_THAT(tree.out, HasSubstr("step"));
  // The same over localhost, which the certificate names too.
  EXPECT_EQ(Remote(kRootToken, {"sessions"}, "localhost").exit_code, 0);
  kill(task, SIGKILL);
  Wait(task, dir_);
}

TEST_F(RemoteTest, AJobLimitedTokenSeesNothingOfOtherJobs) {
  StartWithTls();
  const pid_t task = SpawnIdleTask("88");
  ASSERT_TRUE(WaitListed(task));
  EXPECT_THAT(Remote(kJobToken, {"processes"}).out, HasSubstr("no registered processes"));
  const Completed start = Remote(kJobToken, {"start", "--job", "88"});
  EXPECT_EQ(start.exit_code, 1);
  EXPECT_THAT(start.err, HasSubstr("this token may touch jobs 77 only, not job 88"));
  const Completed by_pid = Remote(kJobToken, {"start", "--pid", std::to_string(task)});
  EXPECT_EQ(by_pid.exit_code, 1);
  EXPECT_THAT(by_pid.out, HasSubstr("not a process of the jobs this token may touch (77)"));
  kill(task, SIGKILL);
  Wait(task, dir_);
}

TEST_F(RemoteTest, WrongExpiredOrMissingTokensAndPlainClientsAreRefused) {
  StartWithTls();
  const Completed unknown = Remote("unknown", {"sessions"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("protonctl: this token is not accepted here"));
  const Completed expired = Remote(kExpiredToken, {"sessions"});
  EXPECT_EQ(expired.exit_code, 1);
  EXPECT_THAT(expired.err, HasSubstr("this token expired at 2020-01-01T00:00:00+00:00"));
  const Completed plain =
      RunToEnd({BinDir() + "/protonctl", "--host", "127.0.0.1:" + std::to_string(port_),
                "--token-file", dir_ + "/" + kRootToken, "--insecure", "sessions"},
               dir_);
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_THAT(plain.err, HasSubstr("does not answer"));
  const Completed no_token = RunToEnd(
      {BinDir() + "/protonctl", "--host", "127.0.0.1:" + std::to_string(port_), "sessions"}, dir_);
  EXPECT_EQ(no_token.exit_code, 2);
  EXPECT_THAT(no_token.err, HasSubstr("--host needs --token-file FILE"));
  // The refusals are logged, without the tokens.
  const std::string log = ReadFile(daemon_.log_path());
  EXPECT_THAT(log, HasSubstr("refused a TCP call from ipv4:127.0.0.1:"));
  for (const char* token : {"unknown-token", kExpiredToken, kRootToken, kJobToken}) {
    EXPECT_THAT(log, Not(HasSubstr(token)));
  }
}

TEST_F(RemoteTest, UnsafeListeningIsRefusedAtStart) {
  const struct {
    std::vector<std::string> args;
    std::string error;
  } cases[] = {
      {{"--listen", "0.0.0.0:0", "--insecure", "--tokens", dir_ + "/tokens"},
       "--insecure serves plain TCP, which only a loopback address may: 0.0.0.0:0 is not one"},
      {{"--listen", "127.0.0.1:0", "--tls-cert", dir_ + "/cert.pem", "--tls-key",
        dir_ + "/key.pem"},
       "--listen needs --tokens FILE"},
      {{"--listen", "127.0.0.1:0", "--tokens", dir_ + "/tokens"}, "--listen needs --tls-cert"},
      {{"--tokens", dir_ + "/tokens"}, "need --listen"},
  };
  for (const auto& [args, error] : cases) {
    std::vector<std::string> argv = {BinDir() + "/protond", "--socket", dir_ + "/other.sock",
                                     "--state-dir", dir_ + "/other"};
    argv.insert(argv.end(), args.begin(), args.end());
    const Completed refused = RunToEnd(argv, dir_);
    EXPECT_NE(refused.exit_code, 0) << error;
    EXPECT_THAT(refused.err, HasSubstr(error));
  }
  chmod((dir_ + "/tokens").c_str(), 0644);
  const Completed open_tokens = RunToEnd(
      {BinDir() + "/protond", "--socket", dir_ + "/other.sock", "--state-dir", dir_ + "/other",
       "--listen", "127.0.0.1:0", "--insecure", "--tokens", dir_ + "/tokens"},
      dir_);
  EXPECT_EQ(open_tokens.exit_code, 1);
  EXPECT_THAT(open_tokens.err, HasSubstr("may be read or written by others (mode 0644)"));
}

TEST_F(RemoteTest, PlainTcpOnLoopbackWorksWithInsecure) {
  daemon_.Start({"--listen", "127.0.0.1:0", "--insecure", "--tokens", dir_ + "/tokens"});
  ReadPort();
  const Completed listed =
      RunToEnd({BinDir() + "/protonctl", "--host", "127.0.0.1:" + std::to_string(port_),
                "--token-file", dir_ + "/" + kRootToken, "--insecure", "sessions"},
               dir_);
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("ID  NAME"));
}

}  // namespace
}  // namespace protond::testing
