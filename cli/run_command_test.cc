#include "cli/run_command.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::cli {
namespace {

using ::testing::ElementsAre;

TEST(RunCommandTest, OptionsEndAtTheProgram) {
  absl::StatusOr<RunOptions> run =
      ParseRunArgs({"--name", "train", "--as-proton", "--data", "trace", "--mode", "pcsampling",
                    "--", "python", "--mode", "x"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->session_name, "train");
  EXPECT_TRUE(run->as_proton);
  EXPECT_TRUE(run->trace);
  EXPECT_EQ(run->mode, "pcsampling");
  EXPECT_THAT(run->argv, ElementsAre("python", "--mode", "x"));
  run = ParseRunArgs({"env", "--data", "x"});  // no `--`: the first argument that is no option
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(run->trace);
  EXPECT_EQ(run->mode, "");
  EXPECT_THAT(run->argv, ElementsAre("env", "--data", "x"));
}

// Help is asked for among run's options; after the program, --help is the program's.
TEST(RunCommandTest, HelpIsAnOptionBeforeTheProgramOnly) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"}, {"-h"}, {"--name", "x", "--help"}}) {
    absl::StatusOr<RunOptions> run = ParseRunArgs(args);
    ASSERT_TRUE(run.ok()) << args.back() << ": " << run.status();
    EXPECT_TRUE(run->help);
    EXPECT_TRUE(run->argv.empty());
  }
  absl::StatusOr<RunOptions> run = ParseRunArgs({"python", "--help"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(run->help);
  EXPECT_THAT(run->argv, ElementsAre("python", "--help"));
  run = ParseRunArgs({"--", "--help"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(run->help);
  EXPECT_THAT(run->argv, ElementsAre("--help"));
}

// The daemon and the program's shim get the mode as the parser writes it back.
TEST(RunCommandTest, TheModeIsSentCanonical) {
  const std::pair<const char*, const char*> cases[] = {
      {"pcsampling", "pcsampling"},
      {"pc_sampling:interval=1000", "pcsampling:interval=1024"},
      {"pcsampling:interval=4096", "pcsampling:interval=4096"},
      {"", ""},
  };
  for (const auto& [given, sent] : cases) {
    absl::StatusOr<RunOptions> run = ParseRunArgs({"--mode", given, "--", "env"});
    ASSERT_TRUE(run.ok()) << given << ": " << run.status();
    EXPECT_EQ(run->mode, sent) << given;
  }
}

constexpr char kNoProgram[] =
    "the program to run is missing: protonctl run [OPTIONS] -- PROGRAM [ARGS...]";

TEST(RunCommandTest, BadArgumentsSayWhatIsWrong) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--mode", "bogus", "--", "env"},
       "--mode: unknown mode 'bogus' (known: \"\" and \"pcsampling[:interval=CYCLES]\")"},
      {{"--mode", "pcsampling:interval=0", "env"},
       "--mode: pcsampling interval must be a positive integer (cycles between samples), "
       "not '0'"},
      {{"--mode", "pcsampling:period=8", "env"},
       "--mode: unknown pcsampling option 'period=8' (known: interval=CYCLES)"},
      {{"--data", "xml", "env"}, "--data is tree or trace, not 'xml'"},
      {{"--name", "x", "--"}, kNoProgram},
      {{}, kNoProgram},
      {{"--bogus", "env"}, "unknown option '--bogus'"},
      {{"-x", "--", "env"}, "unknown option '-x'"},
      {{"--name"}, "--name needs a value"},
      // Refused here, before the program runs: protond refused these only after protonctl had
      // decided to run the program unprofiled, and a name that is not UTF-8 cannot be sent.
      {{"--name", "bad\xff", "--", "env"},
       "--name: session name has invalid UTF-8 at byte 3 (0xff); use UTF-8 text"},
      {{"--name", "bad\x1b[2J", "env"},
       "--name: session name 'bad\\x1b[2J' has a control character at byte 3; use printable "
       "text"},
      {{"--name", std::string(257, 'x'), "env"},
       "--name: session name is 257 bytes, more than 256"},
  };
  for (const auto& [args, message] : cases) {
    absl::StatusOr<RunOptions> run = ParseRunArgs(args);
    ASSERT_FALSE(run.ok()) << message;
    EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(run.status().message(), message);
  }
}

}  // namespace
}  // namespace protond::cli
