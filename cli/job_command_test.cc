#include "cli/job_command.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::cli {
namespace {

TEST(JobCommandTest, TakesASessionOrAJob) {
  absl::StatusOr<JobArgs> args = ParseJobArgs({"12"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->session_id, 12u);
  EXPECT_EQ(args->job, "");
  EXPECT_FALSE(args->follow);
  args = ParseJobArgs({"--job", "77", "--follow"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->session_id, 0u);
  EXPECT_EQ(args->job, "77");
  EXPECT_TRUE(args->follow);
}

TEST(JobCommandTest, RefusesWhatItCannotRead) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "give a session id or --job JOB (one of them)"},
      {{"12", "--job", "77"}, "give a session id or --job JOB (one of them)"},
      {{"--job"}, "--job needs a job id"},
      {{"--job", ""}, "--job needs a job id"},
      {{"12", "13"}, "unexpected argument '13'"},
      {{"0"}, "'0' is not a session id (a positive number; see protonctl sessions)"},
      {{"abc"}, "'abc' is not a session id (a positive number; see protonctl sessions)"},
      {{"12", "--fellow"}, "unknown option '--fellow'"},
  };
  for (const auto& [args, message] : cases) {
    const absl::StatusOr<JobArgs> parsed = ParseJobArgs(args);
    ASSERT_FALSE(parsed.ok()) << testing::PrintToString(args);
    EXPECT_EQ(parsed.status().message(), message) << testing::PrintToString(args);
  }
}

// A session id is one host's: over several hosts, the job is named.
TEST(JobCommandTest, SeveralHostsNeedAJob) {
  client::Client node01("/nonexistent/node01.sock"), node02("/nonexistent/node02.sock");
  const absl::StatusOr<page_server::JobReport> report =
      RunJobCommand({&node01, &node02}, {.session_id = 3});
  EXPECT_EQ(report.status().message(),
            "on several hosts, name the job with --job JOB: a session id is one host's");
}

}  // namespace
}  // namespace protond::cli
