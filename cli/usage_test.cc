#include "cli/usage.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(UsageTest, ACommandsUsageIsItsPartOfTheWhole) {
  EXPECT_EQ(
      CommandUsage("devices"),
      "usage: protonctl [GLOBAL OPTIONS] COMMAND ...\n"
      "  devices SESSION                           list the GPUs of a session's processes: "
      "those\n"
      "                                            each ran work on, and those it only saw\n");
  const std::string whole = ProtonctlUsage("/run/protond/protond.sock");
  EXPECT_THAT(whole, StartsWith("usage: protonctl [--socket PATH"));
  EXPECT_THAT(whole, HasSubstr("else the default (/run/protond/protond.sock).\n"));
  for (const char* command : {"run", "sessions", "history", "tree", "job", "top", "export",
                              "devices", "processes", "start", "stop", "ui"}) {
    const std::string usage = CommandUsage(command);
    ASSERT_THAT(usage, StartsWith("usage: protonctl [GLOBAL OPTIONS] COMMAND ...\n  ")) << command;
    const std::string part = usage.substr(usage.find('\n') + 1);
    EXPECT_THAT(part, StartsWith(std::string("  ") + command + " ")) << command;
    EXPECT_THAT(whole, HasSubstr(part)) << command;
  }
}

TEST(UsageTest, TreeAndTopShowEachOfTheirForms) {
  EXPECT_THAT(CommandUsage("tree"), HasSubstr("  tree SESSION|FILE [-m METRIC[,METRIC]]"));
  EXPECT_THAT(CommandUsage("tree"), HasSubstr("  tree --job JOB [-m METRIC] [-d DEPTH]"));
  EXPECT_THAT(CommandUsage("top"), HasSubstr("  top SESSION|FILE --stalls [-n COUNT]"));
  EXPECT_THAT(CommandUsage("top"), HasSubstr("  top SESSION|FILE --collectives [-n COUNT]"));
}

TEST(UsageTest, UiShowsItsOptions) {
  EXPECT_EQ(CommandUsage("ui"),
            "usage: protonctl [GLOBAL OPTIONS] COMMAND ...\n"
            "  ui [--port PORT] [--web-dir DIR]          serve the web page on 127.0.0.1 (PORT 0, "
            "the\n"
            "                                            default: a free one) and print its "
            "address,\n"
            "                                            with a token; until Ctrl-C "
            "(docs/web.md); with\n"
            "                                            --hosts: the Job page only, over every "
            "node\n");
}

TEST(UsageTest, JobShowsBothItsFormsFollowAndHosts) {
  EXPECT_THAT(CommandUsage("job"), HasSubstr("  job (SESSION | --job JOB) [--follow] "));
  EXPECT_THAT(CommandUsage("job"), HasSubstr("(sessions run with --data trace; docs/jobs.md);\n"));
  EXPECT_THAT(CommandUsage("job"), HasSubstr("--follow: redrawn every 2 s while it records;\n"));
  EXPECT_THAT(CommandUsage("job"), HasSubstr("with --hosts (and --job): over every node, the\n"));
}

TEST(UsageTest, HistoryShowsItsFiltersAndRange) {
  EXPECT_THAT(CommandUsage("history"),
              HasSubstr("  history [--pid PID | --job JOB] [--command REGEX] [--since T] "
                        "[--until T]\n"));
  EXPECT_THAT(CommandUsage("history"), HasSubstr("2h) or an RFC 3339 time (docs/always-on.md)\n"));
}

TEST(UsageTest, AnUnknownCommandHasNoUsage) {
  EXPECT_EQ(CommandUsage("frobnicate"), "");
  EXPECT_EQ(CommandUsage(""), "");
}

TEST(UsageTest, HelpIsAskedBeforeAnyDoubleDash) {
  EXPECT_TRUE(AsksForHelp({"--help"}));
  EXPECT_TRUE(AsksForHelp({"-h"}));
  EXPECT_TRUE(AsksForHelp({"7", "-m", "time/ms", "--help"}));
  EXPECT_FALSE(AsksForHelp({}));
  EXPECT_FALSE(AsksForHelp({"7", "--helpful"}));
  EXPECT_FALSE(AsksForHelp({"--", "--help"}));
}

}  // namespace
}  // namespace protond::cli
