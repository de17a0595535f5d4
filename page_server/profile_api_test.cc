// /api/top's, /api/stalls' and /api/export's answers from hand-built trees, read through a fake
// ProfileSource (no protond: the integration tests have one), and their parameters as
// `protonctl top`'s and `protonctl export`'s arguments.
#include "page_server/profile_api.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/export/chrome_trace.h"
#include "view/hatchet/hatchet_writer.h"
#include "view/testing/test_export_profiles.h"
#include "view/testing/test_profiles.h"

namespace protond::page_server {
namespace {

using ::testing::HasSubstr;

// A matmul on an H100 SXM, and a kernel's sampled line with two instructions.
v1::Tree Profile(bool instructions) {
  v1::Tree tree;
  testing::AddNode(&tree, 0, 0, "ROOT");
  testing::AddH100Matmul(&tree, 1, 0);
  if (instructions) {  // the line's samples are its instructions'
    testing::AddNode(&tree, 2, 1, "/src/mm.py:12@matmul");
    testing::AddSampled(&tree, 3, 2, "0x0170  LDG.E R4, desc[UR4][R2.64]", 7,
                        {{"stalled_long_scoreboard", 6}, {"stalled_selected", 1}});
    testing::AddSampled(&tree, 4, 2, "0x0180", 3, {{"stalled_wait", 3}});
    tree.add_notes("1 instructions without SASS text: protond found no nvdisasm");
  } else {
    testing::AddSampled(
        &tree, 2, 1, "/src/mm.py:12@matmul", 10,
        {{"stalled_long_scoreboard", 6}, {"stalled_wait", 3}, {"stalled_selected", 1}});
  }
  testing::AddH100Sxm(&tree);
  return tree;
}

TopParameters Top(const ApiParameters& parameters) {
  absl::StatusOr<TopParameters> top = TopParametersOf(parameters);
  EXPECT_TRUE(top.ok()) << top.status();
  return top.ok() ? *top : TopParameters{};
}

// Session 1, whose tree is Profile(instructions), and trace session 3 (ExportTree and
// ExportTrace); `asked`: the trees read, as "session/rank/instructions", and the traces.
class FakeSource : public ProfileSource {
 public:
  absl::StatusOr<v1::ListSessionsResponse> ListSessions() override {
    v1::ListSessionsResponse listed;
    listed.add_sessions()->set_id(1);
    v1::Session* trace_session = listed.add_sessions();
    trace_session->set_id(3);
    trace_session->set_data(v1::Session::TRACE);
    return listed;
  }
  absl::StatusOr<v1::Tree> GetTree(uint64_t session_id, const std::string& rank,
                                   bool instructions) override {
    asked.push_back(absl::StrCat(session_id, "/", rank, "/", instructions));
    if (session_id == 3) return testing::ExportTree();
    if (session_id != 1) return absl::NotFoundError("no tree of that session");
    return Profile(instructions);
  }
  absl::StatusOr<v1::Trace> GetTrace(uint64_t session_id) override {
    asked.push_back(absl::StrCat("trace ", session_id));
    if (session_id != 3) {
      return absl::FailedPreconditionError(
          absl::StrCat("session ", session_id, " was not started with --data trace"));
    }
    return testing::ExportTrace();
  }
  absl::StatusOr<v1::Collectives> GetCollectives(uint64_t session_id) override {
    asked.push_back(absl::StrCat("collectives of ", session_id));
    return collectives;
  }
  // protond that cannot read its store.
  absl::StatusOr<v1::ListHistoryResponse> ListHistory(
      const v1::ListHistoryRequest& request) override {
    asked.push_back(absl::StrCat("history of pid ", request.pid()));
    return absl::InternalError("store unreadable");
  }
  absl::StatusOr<v1::RangeTree> GetRangeTree(const v1::ListHistoryRequest& request) override {
    asked.push_back(absl::StrCat("range of pid ", request.pid()));
    return absl::InternalError("store unreadable");
  }
  absl::StatusOr<int64_t> GetClock() override { return 0; }
  std::vector<std::string> asked;
  v1::Collectives collectives;  // session 1's
};

nlohmann::json Answer(ProfileSource& source, absl::string_view path,
                      const ApiParameters& parameters) {
  absl::StatusOr<Response> answer = AnswerProfileApi(source, path, parameters);
  EXPECT_TRUE(answer.ok()) << answer.status();
  if (!answer.ok()) return nullptr;
  EXPECT_EQ(answer->status, 200);
  return nlohmann::json::parse(answer->body);
}

TEST(ApiTest, TopParametersAreProtonctlTopsArguments) {
  const TopParameters top = Top({{"session", "7"}, {"limit", "3"}, {"names", "full"}});
  EXPECT_EQ(top.session, 7u);
  EXPECT_EQ(top.limit, 3);
  EXPECT_EQ(top.kernel_names, view::KernelNames::kFull);
  EXPECT_EQ(Top({{"session", "7"}}).limit, view::kDefaultTopKernels);
  EXPECT_EQ(Top({{"session", "7"}}).kernel_names, view::KernelNames::kShort);
  EXPECT_EQ(TopParametersOf({{"session", "7"}, {"limit", "-1"}}).status().message(),
            "limit: -n needs a number >= 0, not '-1'");
  EXPECT_EQ(TopParametersOf({{"session", "7"}, {"names", "long"}}).status().message(),
            "names: short or full, not 'long'");
  EXPECT_EQ(TopParametersOf({{"limit", "1"}}).status().message(),
            "session: the parameter is missing");
}

TEST(ApiTest, TopIsTopsKernelsWithTheDevices) {
  absl::StatusOr<nlohmann::json> json = TopJson(Profile(false), Top({{"session", "1"}}));
  ASSERT_TRUE(json.ok()) << json.status();
  ASSERT_EQ((*json)["kernels"].size(), 1u);
  EXPECT_EQ((*json)["kernels"][0]["name"], "nvjet");
  EXPECT_EQ((*json)["kernels"][0]["bound"], "compute");
  EXPECT_EQ((*json)["kernels"][0]["text"][7], "50.0");
  EXPECT_THAT((*json)["device_lines"][0].get<std::string>(), HasSubstr("H100 SXM datasheet"));
  ASSERT_EQ((*json)["devices"].size(), 1u);
  EXPECT_EQ((*json)["devices"][0]["text"][3], "sm_90");
  EXPECT_EQ((*json)["device_columns"][0], "PID");
}

TEST(ApiTest, StallsAreTopStallsWithEachLinesInstructionsForSass) {
  const int limit = view::kDefaultTopKernels;
  absl::StatusOr<nlohmann::json> json = StallsJson(Profile(false), nullptr, limit);
  ASSERT_TRUE(json.ok()) << json.status();
  ASSERT_EQ((*json)["lines"].size(), 1u);
  EXPECT_EQ((*json)["lines"][0]["text"][3], "long_scoreboard 67%, wait 33%");
  EXPECT_FALSE((*json)["lines"][0].contains("instructions"));
  EXPECT_FALSE(json->contains("instruction_notes"));

  const v1::Tree instruction_tree = Profile(true);
  json = StallsJson(Profile(false), &instruction_tree, limit);
  ASSERT_TRUE(json.ok()) << json.status();
  const nlohmann::json& instructions = (*json)["lines"][0]["instructions"];
  ASSERT_EQ(instructions.size(), 2u);
  EXPECT_EQ(instructions[0]["offset"], "0x0170");
  EXPECT_EQ(instructions[0]["sass"], "LDG.E R4, desc[UR4][R2.64]");
  EXPECT_EQ(instructions[0]["samples"], 7);
  EXPECT_EQ(instructions[0]["stalled"], 6);
  EXPECT_EQ(instructions[0]["reasons_text"], "long_scoreboard 100%");
  EXPECT_EQ(instructions[1]["offset"], "0x0180");
  EXPECT_EQ(instructions[1]["sass"], "");
  EXPECT_EQ((*json)["instruction_notes"],
            nlohmann::json::array({"1 instructions without SASS text: protond found no nvdisasm"}));
}

TEST(ApiTest, TopAndStallsReadTheSessionAndItsTreeThroughTheSource) {
  FakeSource source;
  const nlohmann::json top = Answer(source, "/api/top", {{"session", "1"}, {"limit", "1"}});
  EXPECT_EQ(top["session"]["id"], "1");
  ASSERT_EQ(top["kernels"].size(), 1u);
  EXPECT_EQ(top["kernels"][0]["name"], "nvjet");
  EXPECT_EQ(source.asked, std::vector<std::string>{"1//0"});

  source.asked.clear();
  const nlohmann::json stalls = Answer(source, "/api/stalls", {{"session", "1"}, {"sass", "1"}});
  EXPECT_EQ(stalls["session"]["id"], "1");
  ASSERT_EQ(stalls["lines"].size(), 1u);
  EXPECT_EQ(stalls["lines"][0]["instructions"].size(), 2u);
  EXPECT_EQ(source.asked, (std::vector<std::string>{"1//0", "1//1"}));
}

// Rank `rank` (pid 100 + rank) of 2 made call 0 of an all_reduce of 4 MB at the top, from
// `start_ns` to 1 ms later.
void AddCall(v1::Collectives& calls, uint32_t rank, uint64_t start_ns) {
  v1::CollectiveEvent* call = calls.add_events();
  call->set_pid(100 + rank);
  call->set_rank(rank);
  call->set_nranks(2);
  call->set_comm_hash(5);
  call->set_count(1'000'000);
  call->set_op("AllReduce");
  call->set_datatype("ncclFloat32");
  call->set_algorithm("RING");
  call->set_protocol("LL");
  call->set_start_ns(start_ns);
  call->set_end_ns(start_ns + 1'000'000);
}

// The session's collective calls are nodes of /api/tree's tree, as in `protonctl tree`; a session
// without them has its tree as it is.
TEST(ApiTest, TreeHasTheSessionsCollectiveCallsUnderTheirScope) {
  FakeSource source;
  const ApiParameters parameters = {{"session", "1"}, {"metrics", "nccl_calls,nccl_wait"}};
  EXPECT_EQ(Answer(source, "/api/tree", {{"session", "1"}})["nodes"].size(), 3u);
  EXPECT_EQ(source.asked, (std::vector<std::string>{"1//0", "collectives of 1"}));

  AddCall(source.collectives, 0, 1'000'000);
  AddCall(source.collectives, 1, 3'000'000);  // rank 0 waits 2 ms
  const nlohmann::json tree = Answer(source, "/api/tree", parameters);
  ASSERT_EQ(tree["nodes"].size(), 4u) << tree.dump(1);
  const nlohmann::json& call = tree["nodes"][3];
  EXPECT_EQ(call["name"], "all_reduce [nccl, 2 ranks, RING/LL]");
  EXPECT_EQ(call["parent"], 0);
  EXPECT_EQ(call["text"], nlohmann::json::parse(R"(["2", "2000000"])"));
  EXPECT_EQ(tree["notes"],
            nlohmann::json::array({"nccl_time (ns): the host's time of all 2 NCCL "
                                   "collective calls (their kernels are not known)"}));
}

TEST(ApiTest, TopAndStallsOfASessionTheCallerMayNotSeeAreNotFoundBeforeItsTreeIsRead) {
  FakeSource source;
  for (const std::string path : {"/api/top", "/api/stalls"}) {
    const absl::StatusOr<Response> answer = AnswerProfileApi(source, path, {{"session", "2"}});
    EXPECT_EQ(answer.status().code(), absl::StatusCode::kNotFound) << path;
    EXPECT_EQ(answer.status().message(), "session 2 does not exist (see protonctl sessions)");
  }
  EXPECT_THAT(source.asked, ::testing::IsEmpty());
  EXPECT_EQ(AnswerProfileApi(source, "/api/stalls", {{"session", "1"}, {"sass", "yes"}})
                .status()
                .message(),
            "sass: 1 or 0, not 'yes'");
}

TEST(ApiTest, HistoryAsksTheSourceOnlyWithGoodParametersAndItsFailureIsProtonds) {
  FakeSource source;
  EXPECT_EQ(AnswerProfileApi(source, "/api/history", {{"pid", "x"}}).status().message(),
            "--pid needs a process id (a positive number), not 'x'");
  EXPECT_THAT(source.asked, ::testing::IsEmpty());
  const absl::StatusOr<Response> failed = AnswerProfileApi(source, "/api/history", {{"pid", "7"}});
  EXPECT_EQ(HttpStatusOf(failed.status()), 502);
  EXPECT_EQ(failed.status().message(), "protond's ListHistory failed: store unreadable");
  EXPECT_EQ(source.asked, std::vector<std::string>{"history of pid 7"});
}

// The download `protonctl export 1 --format hatchet -o protond-1.hatchet` writes.
TEST(ApiTest, ExportIsTheSessionsFileAsADownload) {
  FakeSource source;
  const absl::StatusOr<Response> answer =
      AnswerProfileApi(source, "/api/export", {{"session", "1"}, {"format", "hatchet"}});
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->content_type, "application/octet-stream");
  EXPECT_EQ(answer->body, view::RenderHatchet(Profile(false)));
  EXPECT_THAT(answer->headers,
              ::testing::Contains(::testing::Pair("Content-Disposition",
                                                  "attachment; filename=\"protond-1.hatchet\"")));
  EXPECT_EQ(source.asked, std::vector<std::string>{"1//0"});
}

TEST(ApiTest, ExportReadsATraceWhereItsFormatNeedsOne) {
  FakeSource source;
  absl::StatusOr<Response> answer =
      AnswerProfileApi(source, "/api/export", {{"session", "3"}, {"format", "chrome"}});
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->body, view::RenderChromeTrace(testing::ExportTrace()));
  EXPECT_EQ(source.asked, std::vector<std::string>{"trace 3"});

  source.asked.clear();  // a trace session's csv has each launch's times
  answer = AnswerProfileApi(source, "/api/export", {{"session", "3"}, {"format", "csv"}});
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(source.asked, (std::vector<std::string>{"3//0", "trace 3"}));

  const absl::StatusOr<Response> refused =
      AnswerProfileApi(source, "/api/export", {{"session", "1"}, {"format", "chrome"}});
  EXPECT_EQ(HttpStatusOf(refused.status()), 400);
  EXPECT_EQ(refused.status().message(), "session 1 was not started with --data trace");
}

TEST(ApiTest, ExportChecksItsParametersAndTheSessionBeforeReading) {
  FakeSource source;
  EXPECT_EQ(AnswerProfileApi(source, "/api/export", {{"session", "1"}, {"format", "png"}})
                .status()
                .message(),
            "format: 'png' is not a format: hatchet, hatchet_msgpack, chrome, folded, svg, csv "
            "or pprof");
  const absl::StatusOr<Response> unseen =
      AnswerProfileApi(source, "/api/export", {{"session", "2"}, {"format", "hatchet"}});
  EXPECT_EQ(unseen.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(source.asked, ::testing::IsEmpty());
}

}  // namespace
}  // namespace protond::page_server
