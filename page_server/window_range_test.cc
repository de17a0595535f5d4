// Ranges of always-on windows read through a fake source: LoadWindowRange's merge and heading,
// and /api/range-diff's answer (the page's `tree --since A --diff --since B`).
#include "page_server/window_range.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "page_server/profile_api.h"
#include "view/testing/test_profiles.h"
#include "view/tree/tree_merge.h"

namespace protond::page_server {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int64_t kHourNs = 3'600'000'000'000;
const int64_t kEpochNs = absl::ToUnixNanos(absl::Now()) - 10 * kHourNs;  // window 1 starts

// Four stopped windows of pid 7, an hour apart: windows 1 and 2 spend 100 ns in kernel "a" and
// 100 in "b"; windows 3 and 4 spend 300 in "a" and 100 in "b". GetRangeTree merges as protond does
// (daemon/service/queries_test.cc tests protond's own).
class FourWindows : public ProfileSource {
 public:
  absl::StatusOr<v1::ListSessionsResponse> ListSessions() override {
    return v1::ListSessionsResponse();
  }
  absl::StatusOr<v1::Tree> GetTree(uint64_t session_id, const std::string&, bool) override {
    asked.push_back(session_id);
    v1::Tree tree;
    testing::AddNode(&tree, 0, 0, "ROOT");
    testing::AddKernel(&tree, 1, 0, "a", 1, session_id <= 2 ? 100 : 300);
    testing::AddKernel(&tree, 2, 0, "b", 1, 100);
    return tree;
  }
  absl::StatusOr<v1::ListHistoryResponse> ListHistory(
      const v1::ListHistoryRequest& request) override {
    v1::ListHistoryResponse listed;
    listed.set_total_windows(4);
    for (uint64_t id = 1; id <= 4; ++id) {
      const int64_t start = kEpochNs + static_cast<int64_t>(id - 1) * kHourNs;
      if (request.pid() != 7) continue;
      if (request.has_since_unix_ns() && start < request.since_unix_ns()) continue;
      if (request.has_until_unix_ns() && start >= request.until_unix_ns()) continue;
      v1::Session* window = listed.add_windows();
      window->set_id(id);
      window->set_state(v1::Session::STOPPED);
      window->set_start_time_unix_ns(start);
      window->set_end_time_unix_ns(start + 2'000'000'000);
    }
    return listed;
  }
  absl::StatusOr<v1::RangeTree> GetRangeTree(const v1::ListHistoryRequest& request) override {
    ASSIGN_OR_RETURN(v1::ListHistoryResponse listed, ListHistory(request));
    v1::RangeTree range;
    if (listed.windows().empty()) return range;
    std::vector<v1::Tree> trees;
    for (const v1::Session& window : listed.windows()) {
      ASSIGN_OR_RETURN(v1::Tree tree, GetTree(window.id(), "", false));
      trees.push_back(std::move(tree));
    }
    ASSIGN_OR_RETURN(*range.mutable_tree(), view::MergeTrees(trees));
    *range.mutable_windows() = std::move(*listed.mutable_windows());
    return range;
  }
  absl::StatusOr<v1::Collectives> GetCollectives(uint64_t) override { return v1::Collectives(); }
  absl::StatusOr<v1::Trace> GetTrace(uint64_t) override {
    return absl::FailedPreconditionError("no traces here");
  }
  absl::StatusOr<int64_t> GetClock() override { return 0; }
  std::vector<uint64_t> asked;
};

// "since" and "until" as RFC 3339, `hours` after window 1's start.
std::string HoursIn(double hours) {
  return absl::FormatTime(absl::RFC3339_full,
                          absl::FromUnixNanos(kEpochNs + static_cast<int64_t>(hours * kHourNs)),
                          absl::UTCTimeZone());
}

TEST(WindowRangeTest, TheSelectedWindowsAreMergedAndNamed) {
  FourWindows source;
  view::WindowQuery query;
  ASSERT_TRUE(view::SetWindowOption("--pid", "7", absl::Now(), &query).ok());
  ASSERT_TRUE(view::SetWindowOption("--since", HoursIn(1.5), absl::Now(), &query).ok());
  absl::StatusOr<WindowRange> range = LoadWindowRange(source, query);
  ASSERT_TRUE(range.ok()) << range.status();
  EXPECT_EQ(source.asked, (std::vector<uint64_t>{3, 4}));
  EXPECT_THAT(range->heading, StartsWith("2 always-on windows of pid 7 since " + HoursIn(1.5)));
  int64_t a_ns = 0;
  for (const v1::TreeNode& node : range->tree.nodes()) {
    if (node.name() != "a") continue;
    for (const v1::Metric& metric : node.metrics()) {
      if (metric.name() == "time (ns)") a_ns = metric.int_value();
    }
  }
  EXPECT_EQ(a_ns, 600);

  ASSERT_TRUE(view::SetWindowOption("--since", HoursIn(5), absl::Now(), &query).ok());
  const absl::StatusOr<WindowRange> none = LoadWindowRange(source, query);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(none.status().message()),
              StartsWith("no always-on window of pid 7 since "));
}

TEST(WindowRangeTest, ARangeDiffIsTheLaterRangeMinusTheEarlierWithWhatMoved) {
  FourWindows source;
  const absl::StatusOr<Response> answer = AnswerProfileApi(source, "/api/range-diff",
                                                           {{"pid", "7"},
                                                            {"since", HoursIn(1.5)},
                                                            {"base_until", HoursIn(1.5)},
                                                            {"metrics", "time/ns"}});
  ASSERT_TRUE(answer.ok()) << answer.status();
  const nlohmann::json json = nlohmann::json::parse(answer->body);
  EXPECT_THAT(json["range"].get<std::string>(), StartsWith("2 always-on windows of pid 7 since"));
  EXPECT_THAT(json["base_range"].get<std::string>(),
              StartsWith("2 always-on windows of pid 7 until"));
  bool found = false;
  for (const nlohmann::json& node : json["nodes"]) {
    if (node["name"] != "a") continue;
    found = true;
    EXPECT_EQ(node["values"][0], 400);  // 600 - 200
  }
  EXPECT_TRUE(found) << json.dump(1);
  // a: 50% of the GPU time then, 75% now.
  EXPECT_THAT(json["shifts"].get<std::string>(), HasSubstr("a"));
  EXPECT_THAT(json["shifts"].get<std::string>(), HasSubstr("+25.0"));
}

TEST(WindowRangeTest, ARangeDiffNeedsAnEarlierRangeAndNamesABadOne) {
  FourWindows source;
  EXPECT_EQ(AnswerProfileApi(source, "/api/range-diff", {{"pid", "7"}, {"since", "1h"}})
                .status()
                .message(),
            "base_since: the earlier range needs base_since or base_until");
  EXPECT_THAT(std::string(AnswerProfileApi(source, "/api/range-diff",
                                           {{"pid", "7"}, {"since", "1h"}, {"base_since", "2x"}})
                              .status()
                              .message()),
              StartsWith("base: bad --since '2x'"));
  EXPECT_THAT(source.asked, ::testing::IsEmpty());
}

}  // namespace
}  // namespace protond::page_server
