// protonctl and protond as a person first meets them: --help and -h on every command answer with
// its usage and exit 0 before anything is done (no daemon autostarted, no session), --version
// names the project's version, and a command line that cannot be read says what was wrong.
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kCommandUsage[] = "usage: protonctl [GLOBAL OPTIONS] COMMAND ...\n";

// protonctl at a socket where no daemon runs: anything that reached for one would autostart it.
class HelpTest : public ::testing::Test {
 protected:
  Completed Protonctl(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BinDir() + "/protonctl", "--socket", socket_};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunToEnd(argv, dir_);
  }

  void ExpectNoDaemonStarted() {
    EXPECT_FALSE(std::filesystem::exists(socket_)) << socket_;
    EXPECT_FALSE(std::filesystem::exists(socket_ + ".state")) << socket_;
  }

  std::string dir_ = MakeTempDir();
  std::string socket_ = dir_ + "/run/protond.sock";
};

TEST_F(HelpTest, EveryCommandAnswersHelpWithItsUsageAndStartsNothing) {
  for (const char* command : {"run", "sessions", "tree", "job", "top", "export", "devices",
                              "processes", "start", "stop"}) {
    for (const char* help : {"--help", "-h"}) {
      const Completed shown = Protonctl({command, help});
      EXPECT_EQ(shown.exit_code, 0) << command << " " << help << ": " << shown.err;
      EXPECT_THAT(shown.out, StartsWith(std::string(kCommandUsage) + "  " + command + " "))
          << command << " " << help;
      EXPECT_EQ(shown.err, "") << command << " " << help;
    }
  }
  // After other options too, and for tree --job.
  EXPECT_EQ(Protonctl({"run", "--name", "x", "--help"}).exit_code, 0);
  EXPECT_EQ(Protonctl({"tree", "--job", "77", "--help"}).exit_code, 0);
  ExpectNoDaemonStarted();
}

TEST_F(HelpTest, VersionIsTheProjectsVersion) {
  const Completed protonctl = RunToEnd({BinDir() + "/protonctl", "--version"}, dir_);
  EXPECT_EQ(protonctl.exit_code, 0);
  EXPECT_EQ(protonctl.out, std::string("protonctl ") + PROTOND_VERSION + "\n");
  const Completed protond = RunToEnd({BinDir() + "/protond", "--version"}, dir_);
  EXPECT_EQ(protond.exit_code, 0);
  EXPECT_EQ(protond.out, std::string("protond ") + PROTOND_VERSION + "\n");
  ExpectNoDaemonStarted();
}

TEST_F(HelpTest, RunWithoutAProgramSaysWhatIsMissing) {
  const Completed run = Protonctl({"run", "--name", "x"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_THAT(run.err, StartsWith("protonctl: run: the program to run is missing: protonctl run "
                                  "[OPTIONS] -- PROGRAM [ARGS...]\n" +
                                  std::string(kCommandUsage) + "  run [--name NAME]"));
  ExpectNoDaemonStarted();
}

TEST_F(HelpTest, AnUnknownOptionNamesItselfAndTheCommandsUsage) {
  const Completed run = Protonctl({"run", "--bogus", "env"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, StartsWith("protonctl: run: unknown option '--bogus'\n" +
                                  std::string(kCommandUsage) + "  run "));
  const Completed tree = Protonctl({"tree", "1", "--folow"});
  EXPECT_EQ(tree.exit_code, 2);
  EXPECT_THAT(tree.err, StartsWith("protonctl: tree: unknown option '--folow'\n" +
                                   std::string(kCommandUsage) + "  tree SESSION|FILE"));
  EXPECT_THAT(tree.err, EndsWith("against the other range (docs/always-on.md)\n"));
  EXPECT_THAT(tree.err, Not(HasSubstr("  export ")));
  const Completed start = Protonctl({"start", "--pid", "1", "--color", "red"});
  EXPECT_EQ(start.exit_code, 2);
  EXPECT_THAT(start.err, StartsWith("protonctl: start: unknown option '--color'\n"));
  ExpectNoDaemonStarted();
}

}  // namespace
}  // namespace protond::testing
