#include "view/export/chrome_trace.h"

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace protond::view {
namespace {

using Json = nlohmann::json;

// Process 7: thread 100 runs step [1000, 9000] ns with inner [2000, 4000] in it, thread 200 runs
// step [1500, 3500]; inner launched add_one (stream 7, [3000, 3500]); _Z3foo ran at ROOT before
// everything else (stream 9, [500, 700]), so the trace starts at 500 ns.
v1::Trace SmallTrace() {
  v1::Trace trace;
  trace.set_clock_offset_ns(1000000000000);
  auto node = [&](uint32_t id, uint32_t parent, const char* name) {
    v1::TreeNode* n = trace.add_nodes();
    n->set_id(id);
    n->set_parent_id(parent);
    n->set_name(name);
  };
  node(1, 0, "step");
  node(2, 1, "inner");
  node(3, 2, "add_one");
  node(4, 0, "_Z3foo");
  auto scope = [&](uint32_t tid, uint32_t node_id, uint64_t begin, uint64_t end) {
    v1::ScopeEvent* e = trace.add_scope_events();
    e->set_process_id(7);
    e->set_tid(tid);
    e->set_node_id(node_id);
    e->set_begin_ns(begin);
    e->set_end_ns(end);
  };
  scope(100, 2, 2000, 4000);  // in the order the exits came
  scope(100, 1, 1000, 9000);
  scope(200, 1, 1500, 3500);
  auto kernel = [&](uint32_t node_id, uint32_t stream, uint32_t correlation, uint64_t start,
                    uint64_t end) {
    v1::GpuEvent* e = trace.add_gpu_events();
    e->set_process_id(7);
    e->set_node_id(node_id);
    e->set_kind(v1::GpuEvent::KERNEL);
    e->set_start_ns(start);
    e->set_end_ns(end);
    e->set_stream_id(stream);
    e->set_correlation_id(correlation);
  };
  kernel(3, 7, 5, 3000, 3500);
  kernel(4, 9, 6, 500, 700);
  return trace;
}

std::vector<Json> EventsWhere(const Json& trace, const std::string& key, const Json& value) {
  std::vector<Json> out;
  for (const Json& e : trace["traceEvents"]) {
    if (e.contains(key) && e[key] == value) out.push_back(e);
  }
  return out;
}

TEST(ChromeTraceTest, TopLevelHasProtonsKeysAndTheEpochOfTheEarliestEvent) {
  const std::string text = RenderChromeTrace(SmallTrace());
  const Json trace = Json::parse(text);
  EXPECT_EQ(trace["displayTimeUnit"], "us");
  EXPECT_EQ(trace["baseTimeNanoseconds"], 1000000000500);  // offset + the earliest event (500)
  EXPECT_TRUE(trace["traceEvents"].is_array());
  for (const Json& e : trace["traceEvents"]) EXPECT_EQ(e["pid"], 0) << e;
}

TEST(ChromeTraceTest, LanesAreNamedThreadsInOrderOfFirstEventAndStreams) {
  const Json trace = Json::parse(RenderChromeTrace(SmallTrace()));
  std::set<std::pair<int, std::string>> lanes;
  for (const Json& e : EventsWhere(trace, "ph", "M")) {
    EXPECT_EQ(e["name"], "thread_name");
    lanes.insert({e["tid"].get<int>(), e["args"]["name"].get<std::string>()});
  }
  EXPECT_EQ(lanes, (std::set<std::pair<int, std::string>>{{0, "CPU Thread 0"},
                                                          {1, "CPU Thread 1"},
                                                          {200007, "GPU Stream 7"},
                                                          {200009, "GPU Stream 9"}}));
}

// A job's ranks each have their stream 7: one lane per process, device and stream, named so,
// rather than every rank's kernels on one lane.
TEST(ChromeTraceTest, StreamsOfSeveralProcessesOrDevicesGetALaneEach) {
  v1::Trace trace = SmallTrace();
  v1::GpuEvent other_rank = trace.gpu_events(0);
  other_rank.set_process_id(8);
  other_rank.set_device_id(1);
  *trace.add_gpu_events() = other_rank;
  const Json rendered = Json::parse(RenderChromeTrace(trace));
  std::map<std::string, int> lanes;  // name -> tid
  for (const Json& e : EventsWhere(rendered, "ph", "M")) {
    lanes[e["args"]["name"].get<std::string>()] = e["tid"].get<int>();
  }
  const std::string first =
      absl::StrCat("GPU Stream ", trace.gpu_events(0).stream_id(), " (process 7, device ",
                   trace.gpu_events(0).device_id(), ")");
  const std::string second =
      absl::StrCat("GPU Stream ", other_rank.stream_id(), " (process 8, device 1)");
  ASSERT_TRUE(lanes.contains(first) && lanes.contains(second)) << rendered.dump();
  EXPECT_NE(lanes[first], lanes[second]);
  std::set<int> kernel_lanes;
  for (const Json& e : EventsWhere(rendered, "ph", "X")) {
    if (e["cat"] != "scope") kernel_lanes.insert(e["tid"].get<int>());
  }
  EXPECT_TRUE(kernel_lanes.contains(lanes[second]));
}

TEST(ChromeTraceTest, ScopesAreCompleteEventsInMicrosecondsWithTheirCallStack) {
  const Json trace = Json::parse(RenderChromeTrace(SmallTrace()));
  const std::vector<Json> scopes = EventsWhere(trace, "cat", "scope");
  ASSERT_EQ(scopes.size(), 3u);
  std::set<int> scope_ids;
  for (const Json& e : scopes) scope_ids.insert(e["args"]["scope_id"].get<int>());
  EXPECT_EQ(scope_ids.size(), 3u);  // one per instance
  const std::vector<Json> inner = EventsWhere(trace, "name", "inner");
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(inner[0]["ph"], "X");
  EXPECT_DOUBLE_EQ(inner[0]["ts"].get<double>(), 1.5);  // (2000 - 500) ns
  EXPECT_DOUBLE_EQ(inner[0]["dur"].get<double>(), 2.0);
  EXPECT_EQ(inner[0]["tid"], 0);
  EXPECT_EQ(inner[0]["args"]["call_stack"], Json({"ROOT", "step", "inner"}));
  for (const Json& step : EventsWhere(trace, "name", "step")) {
    EXPECT_EQ(step["args"]["call_stack"], Json({"ROOT", "step"}));
    EXPECT_DOUBLE_EQ(step["dur"].get<double>(), step["tid"] == 0 ? 8.0 : 2.0);
  }
}

TEST(ChromeTraceTest, KernelsSitOnTheirStreamNamedByTheLastFrame) {
  const Json trace = Json::parse(RenderChromeTrace(SmallTrace()));
  const std::vector<Json> kernels = EventsWhere(trace, "cat", "kernel");
  ASSERT_EQ(kernels.size(), 2u);
  const std::vector<Json> add_one = EventsWhere(trace, "name", "add_one");
  ASSERT_EQ(add_one.size(), 1u);
  EXPECT_EQ(add_one[0]["ph"], "X");
  EXPECT_EQ(add_one[0]["tid"], 200007);
  EXPECT_DOUBLE_EQ(add_one[0]["ts"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(add_one[0]["dur"].get<double>(), 0.5);
  EXPECT_EQ(add_one[0]["args"]["call_stack"], Json({"ROOT", "step", "inner", "add_one"}));
  EXPECT_EQ(add_one[0]["args"]["correlation_id"], 5);
  const std::vector<Json> root_kernel = EventsWhere(trace, "name", "_Z3foo");
  ASSERT_EQ(root_kernel.size(), 1u);
  EXPECT_DOUBLE_EQ(root_kernel[0]["ts"].get<double>(), 0.0);
  EXPECT_EQ(root_kernel[0]["tid"], 200009);
}

TEST(ChromeTraceTest, AFlowLinksTheLaunchingScopeToItsKernel) {
  const Json trace = Json::parse(RenderChromeTrace(SmallTrace()));
  const std::vector<Json> starts = EventsWhere(trace, "ph", "s");
  const std::vector<Json> ends = EventsWhere(trace, "ph", "f");
  // _Z3foo ran at ROOT: no scope launched it, so no flow.
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(starts[0]["id"], ends[0]["id"]);
  EXPECT_EQ(starts[0]["tid"], 0);  // thread 100's lane, where inner ran
  EXPECT_DOUBLE_EQ(starts[0]["ts"].get<double>(), 2.5);
  EXPECT_EQ(ends[0]["tid"], 200007);
  EXPECT_EQ(ends[0]["bp"], "e");
  EXPECT_DOUBLE_EQ(ends[0]["ts"].get<double>(), 2.5);
}

// SmallTrace with add_one instrumented: node 5 "loop" under it, node 6 "load" under loop. CTA 3
// ran on SM 17: warp 0 ran loop [3100, 3400] with load [3150, 3200] in it, warp 1 loop [3100,
// 3300] and two async "load"s that overlap without nesting ([3120, 3220] and [3200, 3280]). CTA 4
// ran on SM 2, warp 0 loop [3000, 3450] (the earliest event is still _Z3foo at 500 ns).
v1::Trace InstrumentedTrace() {
  v1::Trace trace = SmallTrace();
  for (auto [id, parent, name] : {std::tuple{5u, 3u, "loop"}, std::tuple{6u, 5u, "load"}}) {
    v1::TreeNode* n = trace.add_nodes();
    n->set_id(id);
    n->set_parent_id(parent);
    n->set_name(name);
  }
  auto interval = [&](uint32_t node, uint32_t sm, uint32_t block, uint32_t warp, uint64_t start,
                      uint64_t end) {
    v1::KernelScopeEvent* e = trace.add_kernel_scope_events();
    e->set_process_id(7);
    e->set_node_id(node);
    e->set_sm_id(sm);
    e->set_block_id(block);
    e->set_warp_id(warp);
    e->set_start_ns(start);
    e->set_end_ns(end);
    e->set_cycles(2 * (end - start));
    e->set_buffer(1);
  };
  interval(6, 17, 3, 0, 3150, 3200);  // in the order the buffer gave them: ends first
  interval(5, 17, 3, 0, 3100, 3400);
  interval(6, 17, 3, 1, 3120, 3220);
  interval(6, 17, 3, 1, 3200, 3280);
  interval(5, 17, 3, 1, 3100, 3300);
  interval(5, 2, 4, 0, 3000, 3450);
  return trace;
}

// (pid, tid) -> the lane's name, and pid -> the process's name.
std::map<std::pair<int, int>, std::string> ThreadNames(const Json& trace) {
  std::map<std::pair<int, int>, std::string> names;
  for (const Json& e : EventsWhere(trace, "name", "thread_name")) {
    names[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
  }
  return names;
}

TEST(ChromeTraceTest, InKernelScopesHaveALanePerWarpInAProcessPerSm) {
  const Json trace = Json::parse(RenderChromeTrace(InstrumentedTrace()));
  std::map<int, std::string> processes;
  for (const Json& e : EventsWhere(trace, "name", "process_name")) {
    processes[e["pid"].get<int>()] = e["args"]["name"];
  }
  // SMs in order of their ids: SM 2 is pid 1, SM 17 pid 2.
  EXPECT_EQ(processes, (std::map<int, std::string>{{1, "GPU 0 SM 2"}, {2, "GPU 0 SM 17"}}));
  const std::map<std::pair<int, int>, std::string> names = ThreadNames(trace);
  EXPECT_EQ(names.at({1, 0}), "CTA 4 warp 0");
  EXPECT_EQ(names.at({2, 0}), "CTA 3 warp 0");
  EXPECT_EQ(names.at({2, 1}), "CTA 3 warp 1");
  EXPECT_EQ(names.at({2, 2}), "CTA 3 warp 1 (overlap 1)");
  EXPECT_EQ(names.size(), 4u + 4u);  // and the CPU threads' and streams' lanes, in pid 0

  const std::vector<Json> scopes = EventsWhere(trace, "cat", "kernel_scope");
  ASSERT_EQ(scopes.size(), 6u);
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> by_lane;
  for (const Json& e : scopes) {
    by_lane[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(
        {e["ts"].get<double>(), e["dur"].get<double>()});
  }
  // Warp 1's second load overlaps the first without nesting in it: it goes to a line of its own.
  EXPECT_EQ(by_lane.at({2, 1}), (std::vector<std::pair<double, double>>{{2.6, 0.2}, {2.62, 0.1}}));
  EXPECT_EQ(by_lane.at({2, 2}), (std::vector<std::pair<double, double>>{{2.7, 0.08}}));
}

TEST(ChromeTraceTest, AnInKernelScopeCarriesItsCallStackAndPlace) {
  const Json trace = Json::parse(RenderChromeTrace(InstrumentedTrace()));
  std::vector<Json> loads;
  for (const Json& e : EventsWhere(trace, "name", "load")) {
    if (e["pid"] == 2 && e["tid"] == 0) loads.push_back(e);
  }
  ASSERT_EQ(loads.size(), 1u);
  const Json& load = loads[0];
  EXPECT_EQ(load["ph"], "X");
  EXPECT_DOUBLE_EQ(load["ts"].get<double>(), 2.65);  // (3150 - 500) ns
  EXPECT_DOUBLE_EQ(load["dur"].get<double>(), 0.05);
  EXPECT_EQ(load["args"]["call_stack"], Json({"ROOT", "step", "inner", "add_one", "loop", "load"}));
  EXPECT_EQ(load["args"]["cycles"], 100);
  EXPECT_EQ(load["args"]["sm_id"], 17);
  EXPECT_EQ(load["args"]["block_id"], 3);
  EXPECT_EQ(load["args"]["warp_id"], 0);
  EXPECT_EQ(load["args"]["buffer"], 1);
}

TEST(ChromeTraceTest, AnEmptyTraceIsValid) {
  const Json trace = Json::parse(RenderChromeTrace(v1::Trace()));
  EXPECT_EQ(trace["baseTimeNanoseconds"], 0);
  EXPECT_TRUE(trace["traceEvents"].empty());
}

}  // namespace
}  // namespace protond::view
