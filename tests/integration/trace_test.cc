// Trace sessions end to end: `protonctl run --data trace` on the sample workload, the events read
// back with GetTrace, checked against the stored tree (one event per counted scope instance),
// also across a daemon killed with SIGKILL and restarted mid-run (exactly once).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <thread>

#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override { daemon_.Start(); }

  std::vector<std::string> RunArgs(const std::string& data, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BinDir() + "/protonctl",
                                     "--socket",
                                     daemon_.socket(),
                                     "run",
                                     "--name",
                                     "sample",
                                     "--data",
                                     data,
                                     "--",
                                     BinDir() + "/sample_workload"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  // Every scope instance the tree counts is one event on its thread, and no other.
  static void ExpectEventsMatchTheTree(const v1::Tree& tree, const v1::Trace& trace) {
    std::map<uint32_t, uint64_t> events_per_node;
    std::set<uint32_t> tids;
    for (const v1::ScopeEvent& event : trace.scope_events()) {
      ++events_per_node[event.node_id()];
      tids.insert(event.tid());
      EXPECT_GE(event.end_ns(), event.begin_ns());
    }
    uint64_t counted = 0;
    for (const v1::TreeNode& node : tree.nodes()) {
      if (node.id() == 0) continue;
      EXPECT_EQ(events_per_node[node.id()], node.count()) << node.name();
      counted += node.count();
    }
    EXPECT_EQ(static_cast<uint64_t>(trace.scope_events_size()), counted);
    EXPECT_EQ(tids.size(), 5u);                            // the main thread and 4 workers
    EXPECT_EQ(trace.nodes_size(), tree.nodes_size() - 1);  // the tree's nodes but ROOT
    EXPECT_EQ(trace.gpu_events_size(), 0);
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
};

TEST_F(TraceTest, ATraceSessionKeepsEveryScopeInstance) {
  const Completed run = RunToEnd(RunArgs("trace", {"--steps", "20"}), dir_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  client::Client client(daemon_.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  EXPECT_EQ(sessions->sessions(0).data(), v1::Session::TRACE);
  auto tree = client.GetTree(1);
  auto trace = client.GetTrace(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_TRUE(trace.ok()) << trace.status();
  ExpectEventsMatchTheTree(*tree, *trace);
  EXPECT_EQ(trace->scope_events_size(), 1 + 1 + 3 * 20 + 4 * 51);  // setup, train, steps, workers
  // CLOCK_REALTIME - CLOCK_MONOTONIC: the epoch is decades before now; boot was recent.
  EXPECT_GT(trace->clock_offset_ns(), int64_t{1600000000} * 1000000000);
}

TEST_F(TraceTest, ATreeSessionHasNoTraceAndSaysWhy) {
  ASSERT_EQ(RunToEnd(RunArgs("tree", {"--steps", "2"}), dir_).exit_code, 0);
  client::Client client(daemon_.socket());
  auto trace = client.GetTrace(1);
  EXPECT_EQ(trace.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(trace.status().message(),
              HasSubstr("session 1 (sample) was not started with data=\"trace\""));
  EXPECT_EQ(client.ListSessions()->sessions(0).data(), v1::Session::TREE);
}

TEST_F(TraceTest, ExportOfAChromeTraceNeedsATraceSession) {
  ASSERT_EQ(RunToEnd(RunArgs("tree", {"--steps", "2"}), dir_).exit_code, 0);
  const std::string out = dir_ + "/tree.json";
  const Completed exported = RunToEnd({BinDir() + "/protonctl", "--socket", daemon_.socket(),
                                       "export", "1", "--format", "chrome", "-o", out},
                                      dir_);
  EXPECT_EQ(exported.exit_code, 1);
  EXPECT_THAT(exported.err, HasSubstr("session 1 (sample) was not started with data=\"trace\""));
  EXPECT_NE(access(out.c_str(), F_OK), 0);
}

TEST_F(TraceTest, ExportWritesTheChromeTraceOfATraceSession) {
  ASSERT_EQ(RunToEnd(RunArgs("trace", {"--steps", "2"}), dir_).exit_code, 0);
  const std::string out = dir_ + "/trace.json";
  const std::vector<std::string> argv = {BinDir() + "/protonctl",
                                         "--socket",
                                         daemon_.socket(),
                                         "export",
                                         "1",
                                         "--format",
                                         "chrome",
                                         "-o",
                                         out};
  const Completed exported = RunToEnd(argv, dir_);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(exported.err, "");  // no progress: stderr is not a terminal
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("\"displayTimeUnit\":\"us\""));
  EXPECT_THAT(text, HasSubstr("\"name\":\"train\""));
  // Again without --force: refused, the file kept.
  const Completed again = RunToEnd(argv, dir_);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr(out + " exists; --force overwrites it"));
}

TEST_F(TraceTest, ExportOnATerminalShowsHowManyEventsItHasRead) {
  ASSERT_EQ(RunToEnd(RunArgs("trace", {"--steps", "2"}), dir_).exit_code, 0);
  auto trace = client::Client(daemon_.socket()).GetTrace(1);
  ASSERT_TRUE(trace.ok()) << trace.status();
  const std::string events = std::to_string(trace->scope_events_size() + trace->gpu_events_size());
  EXPECT_EQ(std::to_string(trace->event_count()), events);
  // util-linux's script gives protonctl a terminal, as a person has.
  const std::string command = BinDir() + "/protonctl --socket " + daemon_.socket() +
                              " export 1 --format chrome -o " + dir_ + "/t.json";
  const Completed exported = RunToEnd({"/usr/bin/script", "-qec", command, "/dev/null"}, dir_);
  ASSERT_EQ(exported.exit_code, 0) << exported.out << exported.err;
  EXPECT_THAT(exported.out,
              HasSubstr("protonctl export: reading the events of session 1\r\n"
                        "\rprotonctl export: reading the events of session 1: 100% (" +
                        events + " of " + events +
                        " events)\x1b[K\r\n"
                        "protonctl export: rendering\r\n"));
}

TEST_F(TraceTest, ProtonctlRefusesAnUnknownData) {
  const Completed run = RunToEnd(RunArgs("bogus", {}), dir_);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("run: --data is tree or trace, not 'bogus'"));
}

// Killed mid-run and restarted: each event is kept once, and the tree is the one the same
// workload gives undisturbed (run again after, without its sleeps), every node and metric.
TEST_F(TraceTest, SigkillAndRestartKeepEachEventExactlyOnce) {
  const pid_t run = Spawn(RunArgs("trace", {"--steps", "60", "--step-ms", "20"}), dir_);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a few commits have happened
  daemon_.Kill(SIGKILL);
  daemon_.Start();
  const Completed done = Wait(run, dir_);
  ASSERT_EQ(done.exit_code, 0) << done.err;
  client::Client client(daemon_.socket());
  auto tree = client.GetTree(1);
  auto trace = client.GetTrace(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_TRUE(trace.ok()) << trace.status();
  ExpectEventsMatchTheTree(*tree, *trace);
  EXPECT_EQ(trace->scope_events_size(), 1 + 1 + 3 * 60 + 4 * 51);

  ASSERT_EQ(RunToEnd(RunArgs("trace", {"--steps", "60"}), dir_).exit_code, 0);
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  ASSERT_EQ(sessions->sessions_size(), 2);
  for (const v1::Session& session : sessions->sessions()) {
    EXPECT_EQ(session.records(), SampleWorkloadRecords(60, 4, 50)) << "session " << session.id();
    EXPECT_EQ(session.dropped_records(), 0u) << "session " << session.id();
    EXPECT_THAT(session.problems(), IsEmpty()) << "session " << session.id();
  }
  auto undisturbed = client.GetTree(2);
  ASSERT_TRUE(undisturbed.ok()) << undisturbed.status();
  ASSERT_EQ(undisturbed->nodes_size(), 8) << undisturbed->DebugString();  // ROOT and 7 scopes
  ExpectSameTree(*tree, *undisturbed);
}

}  // namespace
}  // namespace protond::testing
