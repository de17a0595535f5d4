#include "view/history/window_query.h"

#include "gtest/gtest.h"

namespace protond::view {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'795'773'600);  // 2026-11-27T10:00:00Z

TEST(WindowQueryTest, EachOptionSetsItsPartOfTheQuery) {
  WindowQuery query;
  ASSERT_TRUE(SetWindowOption("--pid", "7", kNow, &query).ok());
  ASSERT_TRUE(SetWindowOption("--command", "train\\.py", kNow, &query).ok());
  ASSERT_TRUE(SetWindowOption("--since", "2h", kNow, &query).ok());
  ASSERT_TRUE(SetWindowOption("--until", "2026-11-27T09:30:00Z", kNow, &query).ok());
  EXPECT_TRUE(CheckWindowSelection(query).ok());
  const v1::ListHistoryRequest request = HistoryRequestOf(query);
  EXPECT_EQ(request.pid(), 7u);
  EXPECT_EQ(request.command(), "train\\.py");
  EXPECT_EQ(request.since_unix_ns(), absl::ToUnixNanos(kNow - absl::Hours(2)));
  EXPECT_EQ(request.until_unix_ns(), absl::ToUnixNanos(kNow - absl::Minutes(30)));
  EXPECT_EQ(query.since_text, "2h");
}

TEST(WindowQueryTest, OnlyTheWindowOptionsAreKnown) {
  for (const char* option : {"--pid", "--job", "--command", "--since", "--until"}) {
    EXPECT_TRUE(IsWindowOption(option)) << option;
  }
  EXPECT_FALSE(IsWindowOption("--rank"));
  WindowQuery query;
  EXPECT_EQ(SetWindowOption("--rank", "1", kNow, &query).message(), "unknown option '--rank'");
  EXPECT_EQ(SetWindowOption("--job", "", kNow, &query).message(), "--job needs a job id");
}

}  // namespace
}  // namespace protond::view
