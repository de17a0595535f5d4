#include "cli/ui_command.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::cli {
namespace {

TEST(UiCommandTest, ParsesPortAndWebDir) {
  absl::StatusOr<UiArgs> args = ParseUiArgs({"--port", "8080", "--web-dir", "/srv/web"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->port, 8080);
  EXPECT_EQ(args->web_dir, "/srv/web");
  args = ParseUiArgs({});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->port, 0);
  EXPECT_EQ(args->web_dir, "");
}

TEST(UiCommandTest, BadArgumentsSayWhatIsWrong) {
  EXPECT_EQ(ParseUiArgs({"--port", "http"}).status().message(),
            "--port needs a number from 0 to 65535, not 'http'");
  EXPECT_EQ(ParseUiArgs({"--port", "65536"}).status().message(),
            "--port needs a number from 0 to 65535, not '65536'");
  EXPECT_EQ(ParseUiArgs({"--port"}).status().message(), "--port needs a value");
  EXPECT_EQ(ParseUiArgs({"--open"}).status().message(), "unknown option '--open'");
  EXPECT_EQ(ParseUiArgs({"7"}).status().message(), "unexpected argument '7'");
}

TEST(UiCommandTest, WithoutThePageItRefusesToStart) {
  client::Client client("/nonexistent/protond.sock");
  const absl::Status refused = RunUiCommand({&client}, {0, "/nonexistent/web"}, stdout);
  EXPECT_TRUE(absl::IsNotFound(refused));
  EXPECT_THAT(refused.message(), ::testing::HasSubstr("/nonexistent/web"));
  EXPECT_THAT(refused.message(), ::testing::HasSubstr("scripts/build_web.sh"));
}

}  // namespace
}  // namespace protond::cli
