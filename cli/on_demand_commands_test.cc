#include "cli/on_demand_commands.h"

#include "gtest/gtest.h"

namespace protond::cli {
namespace {

TEST(OnDemandCommandsTest, StartTakesPidsOrAJobAndItsOptions) {
  absl::StatusOr<StartArgs> start =
      ParseStartArgs({"--pid", "10", "--pid", "11", "--name", "window", "--duration", "2s",
                      "--data", "trace", "--wait"});
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_EQ(start->request.pids_size(), 2);
  EXPECT_EQ(start->request.pids(1), 11u);
  EXPECT_EQ(start->request.name(), "window");
  EXPECT_EQ(start->request.duration_ms(), 2000u);
  EXPECT_EQ(start->request.data(), v1::Session::TRACE);
  EXPECT_TRUE(start->wait);
  start = ParseStartArgs({"--job", "981"});
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_EQ(start->request.job(), "981");
  EXPECT_FALSE(start->wait);
  EXPECT_FALSE(start->request.include_new());
  start = ParseStartArgs({"--include-new", "--job", "981"});
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_TRUE(start->request.include_new());
  EXPECT_EQ(start->request.mode(), "");
}

// Sent as the parser writes it back, which the daemon stores.
TEST(OnDemandCommandsTest, StartTakesAModeAndSendsItCanonical) {
  absl::StatusOr<StartArgs> start = ParseStartArgs({"--pid", "10", "--mode", "pcsampling"});
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_EQ(start->request.mode(), "pcsampling");
  start = ParseStartArgs({"--mode", "pc_sampling:interval=1000", "--job", "981"});
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_EQ(start->request.mode(), "pcsampling:interval=1024");
}

TEST(OnDemandCommandsTest, BadStartArgumentsSayWhatIsWrong) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{}, "start needs --pid PID (one or more) or --job JOB, not both"},
      {{"--pid", "1", "--job", "j"}, "start needs --pid PID (one or more) or --job JOB, not both"},
      {{"--pid", "abc"}, "'abc' is not a pid (a positive number)"},
      {{"--pid", "0"}, "'0' is not a pid (a positive number)"},
      {{"--pid"}, "unexpected argument '--pid' (it needs a value)"},
      {{"--pid", "1", "--data", "xml"}, "--data is tree or trace, not 'xml'"},
      {{"--pid", "1", "--duration", "soon"},
       "'soon' is not a duration (a positive number with ms, s, m, h or d; a bare number is "
       "seconds)"},
      {{"--pid", "1", "--color", "red"}, "unknown option '--color'"},
      {{"--pid", "1", "--include-new"},
       "--include-new goes with --job: the processes of that job that register later"},
      {{"--pid", "1", "--mode", "bogus"},
       "--mode: unknown mode 'bogus' (known: \"\" and \"pcsampling[:interval=CYCLES]\")"},
      {{"--job", "j", "--mode", "pcsampling:interval=-5"},
       "--mode: pcsampling interval must be a positive integer (cycles between samples), not "
       "'-5'"},
      {{"--pid", "1", "--mode"}, "unexpected argument '--mode' (it needs a value)"},
      {{"--pid", "1", "--name", "\xc3("},
       "--name: session name has invalid UTF-8 at byte 0 (0xc3); use UTF-8 text"},
      {{"--job", "j", "--name", "a\nb"},
       "--name: session name 'a\\x0ab' has a control character at byte 1; use printable text"},
  };
  for (const auto& [args, message] : cases) {
    absl::StatusOr<StartArgs> start = ParseStartArgs(args);
    ASSERT_FALSE(start.ok()) << message;
    EXPECT_EQ(start.status().message(), message);
  }
}

TEST(OnDemandCommandsTest, StopTakesASessionAPidOrAJob) {
  EXPECT_EQ(ParseStopArgs({"--session", "4"})->session_id, 4u);
  EXPECT_EQ(ParseStopArgs({"--pid", "77"})->pid, 77u);
  EXPECT_EQ(ParseStopArgs({"--job", "981"})->job, "981");
  EXPECT_EQ(ParseStopArgs({"--session", "x"}).status().message(),
            "'x' is not a session id (a positive number; see protonctl sessions)");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{}, {"--pid", "1", "--session", "2"}, {"--job", ""}}) {
    EXPECT_EQ(ParseStopArgs(args).status().message(),
              "stop takes --session SESSION, --pid PID or --job JOB");
  }
}

}  // namespace
}  // namespace protond::cli
