// /api/job's answers from hand-built ranks, read through fake ProfileSources (no protond: the
// integration tests have one): one node with a two-rank job, and the same job over two nodes
// whose clocks differ.
#include "page_server/job_api.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/clock/tsc_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/jobs/testing/plugin_calls.h"
#include "view/testing/test_profiles.h"

namespace protond::page_server {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMs = 1'000'000;

// Session 5 of job 77 (or `job`) on one node, with the processes of `ranks` (rank R is pid 4000 +
// R). Rank R's tree: a kernel "step" of (R + 1) * 100 ms. With `late_ns`, the NCCL profiler
// plugin's 50 all_reduce calls, rank 1 calling each `late_ns` after rank 0, and this node's clock
// `ahead_ns` ahead of the test's (its calls' times too).
class JobSource : public ProfileSource {
 public:
  JobSource(std::vector<uint32_t> ranks, int64_t late_ns, int64_t ahead_ns = 0,
            std::string job = "77")
      : ranks_(std::move(ranks)), ahead_ns_(ahead_ns), job_(std::move(job)) {
    for (int call = 0; call < 50 && late_ns > 0; ++call) {
      for (uint32_t rank : ranks_) {
        view::testing::AddAllReduceCall(collectives_, rank, call,
                                        ahead_ns_ + kMs * (100 + 50 * call) + rank * late_ns,
                                        ahead_ns_ + kMs * (111 + 50 * call));
      }
    }
  }
  absl::StatusOr<v1::ListSessionsResponse> ListSessions() override {
    v1::ListSessionsResponse listed;
    v1::Session* session = listed.add_sessions();
    session->set_id(5);
    session->set_job(job_);
    session->set_state(state);
    for (uint32_t rank : ranks_) {
      v1::SessionProcess* process = session->add_processes();
      process->set_process_id(rank + 1);
      process->set_pid(4000 + rank);
      process->mutable_job()->set_rank(absl::StrCat(rank));
    }
    listed.add_sessions()->set_id(6);  // of no job
    return listed;
  }
  absl::StatusOr<v1::Tree> GetTree(uint64_t session_id, const std::string& rank,
                                   bool instructions) override {
    asked.push_back(absl::StrCat("tree ", session_id, "/", rank, "/", instructions));
    uint32_t rank_number = 0;
    if (!absl::SimpleAtoi(rank, &rank_number)) return absl::InvalidArgumentError("no rank");
    v1::Tree tree;
    testing::AddNode(&tree, 0, 0, "ROOT");
    testing::AddKernel(&tree, 1, 0, "step", 1, (rank_number + 1) * 100 * kMs);
    return tree;
  }
  absl::StatusOr<v1::Collectives> GetCollectives(uint64_t session_id) override {
    asked.push_back(absl::StrCat("collectives of ", session_id));
    return collectives_;
  }
  absl::StatusOr<v1::ListHistoryResponse> ListHistory(const v1::ListHistoryRequest&) override {
    return absl::UnimplementedError("no history here");
  }
  absl::StatusOr<v1::RangeTree> GetRangeTree(const v1::ListHistoryRequest&) override {
    return absl::UnimplementedError("no history here");
  }
  // Session 5 is a tree session.
  absl::StatusOr<v1::Trace> GetTrace(uint64_t session_id) override {
    return absl::FailedPreconditionError(
        absl::StrCat("session ", session_id, " was not started with --data trace"));
  }
  absl::StatusOr<int64_t> GetClock() override {
    return static_cast<int64_t>(clock::MonotonicNs()) + ahead_ns_;
  }
  std::vector<std::string> asked;
  v1::Session::State state = v1::Session::STOPPED;  // session 5's

 private:
  const std::vector<uint32_t> ranks_;
  const int64_t ahead_ns_;
  const std::string job_;
  v1::Collectives collectives_;
};

absl::StatusOr<nlohmann::json> Answer(std::span<const JobNode> nodes,
                                      const ApiParameters& parameters) {
  absl::StatusOr<Response> answer = AnswerJobApi(nodes, parameters);
  if (!answer.ok()) return answer.status();
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->content_type, "application/json");
  return nlohmann::json::parse(answer->body);
}

TEST(JobApiTest, TheRanksAreSpreadAndThePluginsCallsGiveTheVerdict) {
  JobSource source({0, 1}, 10 * kMs);
  const JobNode node{&source, "/run/protond.sock", "node01"};
  const absl::StatusOr<nlohmann::json> json = Answer({&node, 1}, {{"job", "77"}});
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ((*json)["job"], "77");
  EXPECT_EQ((*json)["metric"], "time (ms)");
  EXPECT_EQ((*json)["columns"], nlohmann::json::parse(R"(["time (ms) total", "min", "median",
                                                         "max", "slowest rank", "ranks"])"));
  const nlohmann::json& step = (*json)["nodes"][1];
  EXPECT_EQ(step["name"], "step");
  EXPECT_EQ(step["text"],
            nlohmann::json::parse(R"(["300.000", "100.000", "150.000", "200.000", "1", "2"])"));
  EXPECT_EQ((*json)["ranks"], nlohmann::json::parse(R"([
      {"rank": "0", "host": "/run/protond.sock", "session": "5"},
      {"rank": "1", "host": "/run/protond.sock", "session": "5"}])"));
  ASSERT_EQ((*json)["sessions"].size(), 1u);
  EXPECT_EQ((*json)["sessions"][0]["id"], "5");
  EXPECT_EQ((*json)["problems"], nlohmann::json::array());
  EXPECT_THAT((*json)["verdict"].get<std::string>(),
              HasSubstr("rank 1 (pid 4001, node01) arrives last at 50 of 50 all_reduce calls, on "
                        "average 10.0 ms after the first"));
  EXPECT_EQ((*json)["no_verdict"], nullptr);
  EXPECT_EQ((*json)["running"], false);
  EXPECT_EQ(source.asked, (std::vector<std::string>{"collectives of 5", "tree 5/0/0", "tree 5/1/0",
                                                    "collectives of 5"}));
}

// A session of the job that runs makes the job's answer "running" (the page then reads it again),
// with a verdict or without one.
TEST(JobApiTest, AJobWithARunningSessionIsRunning) {
  for (const int64_t late_ns : {10 * kMs, int64_t{0}}) {
    JobSource source({0, 1}, late_ns);
    source.state = v1::Session::RUNNING;
    const JobNode node{&source, "/run/protond.sock", "node01"};
    const absl::StatusOr<nlohmann::json> json = Answer({&node, 1}, {{"job", "77"}});
    ASSERT_TRUE(json.ok()) << json.status();
    EXPECT_EQ((*json)["running"], true) << late_ns;
  }
}

// Without the plugin's calls a tree session has no verdict, and says why as protonctl job does.
TEST(JobApiTest, ATreeSessionWithoutCallsSaysWhyThereIsNoVerdict) {
  JobSource source({0, 1}, 0);
  const JobNode node{&source, "/run/protond.sock", "node01"};
  const absl::StatusOr<nlohmann::json> json = Answer({&node, 1}, {{"job", "77"}});
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ((*json)["verdict"], nullptr);
  EXPECT_THAT((*json)["no_verdict"].get<std::string>(),
              ::testing::StartsWith("session 5 has no per-kernel times: record it with "));
}

TEST(JobApiTest, RefusesWhatItCannotRead) {
  JobSource source({0, 1}, 0);
  const JobNode node{&source, "/run/protond.sock", "node01"};
  EXPECT_EQ(Answer({&node, 1}, {}).status().message(), "job: the parameter is missing");
  EXPECT_EQ(Answer({&node, 1}, {{"job", "77"}, {"names", "long"}}).status().message(),
            "names: short or full, not 'long'");
  const absl::Status bad_metric =
      Answer({&node, 1}, {{"job", "77"}, {"metrics", "bogus"}}).status();
  EXPECT_TRUE(absl::IsInvalidArgument(bad_metric));
  EXPECT_THAT(std::string(bad_metric.message()),
              ::testing::StartsWith("metrics: metric \"bogus\" is not found"));
  const absl::Status unknown = Answer({&node, 1}, {{"job", "78"}}).status();
  EXPECT_TRUE(absl::IsNotFound(unknown));
  EXPECT_EQ(unknown.message(),
            "no node has a session of job 78: /run/protond.sock: no session of job 78 here");
}

// Rank 0 on node01, rank 1 on node02, whose clock is 1000 s ahead: the ranks are joined, and the
// late rank is found on the reference clock, as `protonctl --hosts ... tree --job` finds it.
TEST(JobApiTest, TwoNodesRanksAreJoinedAndTheirClocksRelated) {
  constexpr int64_t kAheadNs = 1'000'000 * kMs;
  JobSource node01({0}, 10 * kMs), node02({1}, 10 * kMs, kAheadNs);
  const JobNode nodes[] = {{&node01, "node01:7878", "node01"}, {&node02, "node02:7878", "node02"}};
  const absl::StatusOr<nlohmann::json> json = Answer(nodes, {{"job", "77"}});
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ((*json)["ranks"], nlohmann::json::parse(R"([
      {"rank": "0", "host": "node01:7878", "session": "5"},
      {"rank": "1", "host": "node02:7878", "session": "5"}])"));
  EXPECT_EQ((*json)["nodes"][1]["text"],
            nlohmann::json::parse(R"(["300.000", "100.000", "150.000", "200.000", "1", "2"])"));
  const std::string verdict = (*json)["verdict"].get<std::string>();
  EXPECT_THAT(verdict, HasSubstr("clock offsets: node02 -1000000."));
  EXPECT_THAT(verdict, HasSubstr("rank 1 (pid 4001, node02) arrives last at 50 of 50"));
}

// A node without a session of the job is left out and named; the others still show.
TEST(JobApiTest, ANodeWithoutTheJobIsNamedAndTheOthersShow) {
  JobSource node01({0, 1}, 0), node02({2}, 0, 0, "78");
  const JobNode nodes[] = {{&node01, "node01:7878", "node01"}, {&node02, "node02:7878", "node02"}};
  const absl::StatusOr<nlohmann::json> json = Answer(nodes, {{"job", "77"}});
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ((*json)["ranks"].size(), 2u);
  EXPECT_EQ((*json)["problems"], nlohmann::json::array({"node02:7878: no session of job 77 here"}));
}

}  // namespace
}  // namespace protond::page_server
