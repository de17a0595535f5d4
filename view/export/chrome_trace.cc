#include "view/export/chrome_trace.h"

#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace protond::view {
namespace {

using Json = nlohmann::json;

// Names and paths of the tree's nodes; node 0 is ROOT.
class NodeNames {
 public:
  explicit NodeNames(const v1::Trace& trace) {
    for (const v1::TreeNode& node : trace.nodes()) nodes_[node.id()] = {node.parent_id(), &node};
  }

  std::string Name(uint32_t id) const {
    auto it = nodes_.find(id);
    return it != nodes_.end() ? it->second.second->name() : "ROOT";
  }
  uint32_t Parent(uint32_t id) const {
    auto it = nodes_.find(id);
    return it != nodes_.end() ? it->second.first : 0;
  }
  // ["ROOT", ..., the node's name]. Ids come from the daemon's tree; a cycle would be its bug,
  // and the walk stops after as many steps as there are nodes.
  Json CallStack(uint32_t id) const {
    std::vector<std::string> frames;
    for (size_t steps = 0; id != 0 && steps <= nodes_.size(); ++steps) {
      frames.push_back(Name(id));
      id = Parent(id);
    }
    frames.push_back("ROOT");
    std::reverse(frames.begin(), frames.end());
    return frames;
  }

 private:
  absl::flat_hash_map<uint32_t, std::pair<uint32_t, const v1::TreeNode*>> nodes_;
};

const char* Category(v1::GpuEvent::Kind kind) {
  switch (kind) {
    case v1::GpuEvent::MEMCPY:
      return "memcpy";
    case v1::GpuEvent::MEMSET:
      return "memset";
    default:
      return "kernel";
  }
}

// A scope instance placed on its CPU lane, for finding the instance that launched GPU work.
struct PlacedScope {
  uint64_t begin_ns;
  uint64_t end_ns;
  uint32_t lane;
};

// The lane of an in-kernel interval: one warp of one CTA on one SM, and a line of that warp where
// intervals overlap without nesting (async events), which one lane cannot show.
struct WarpLane {
  uint64_t process_id;
  uint32_t device_id;
  uint32_t sm_id;
  uint32_t block_id;
  uint32_t warp_id;
  uint32_t line;
  friend auto operator<=>(const WarpLane&, const WarpLane&) = default;
};

WarpLane WarpLaneOf(const v1::KernelScopeEvent& e) {
  return {e.process_id(), e.device_id(), e.sm_id(), e.block_id(), e.warp_id(), 0};
}

// Gives each interval of one warp (sorted by start, outer first) the first line where it nests in
// or follows what is open there; `lines` holds, per line, the ends of the intervals open on it.
uint32_t AssignLine(const v1::KernelScopeEvent& e, std::vector<std::vector<uint64_t>>& lines) {
  for (uint32_t line = 0; line < lines.size(); ++line) {
    std::vector<uint64_t>& open = lines[line];
    while (!open.empty() && open.back() <= e.start_ns()) open.pop_back();
    if (open.empty() || e.end_ns() <= open.back()) {
      open.push_back(e.end_ns());
      return line;
    }
  }
  lines.push_back({e.end_ns()});
  return static_cast<uint32_t>(lines.size() - 1);
}

class ChromeTraceWriter {
 public:
  explicit ChromeTraceWriter(const v1::Trace& trace) : trace_(trace), names_(trace) {
    for (const v1::ScopeEvent& e : trace.scope_events())
      origin_ns_ = std::min(origin_ns_, e.begin_ns());
    for (const v1::GpuEvent& e : trace.gpu_events())
      origin_ns_ = std::min(origin_ns_, e.start_ns());
    for (const v1::KernelScopeEvent& e : trace.kernel_scope_events())
      origin_ns_ = std::min(origin_ns_, e.start_ns());
    if (origin_ns_ == std::numeric_limits<uint64_t>::max()) origin_ns_ = 0;
  }

  // Each event is dumped straight into the output (keys sorted, as nlohmann's objects are), so
  // a large trace is held once, as text; the lane names come last (their order does not matter).
  std::string Render() {
    out_ = "{\"baseTimeNanoseconds\":";
    out_ += std::to_string(static_cast<int64_t>(origin_ns_) + trace_.clock_offset_ns());
    out_ += ",\"displayTimeUnit\":\"us\",\"traceEvents\":[";
    WriteScopes();
    WriteGpuEvents();
    WriteKernelScopes();
    for (const Json& lane_name : lane_names_) Append(lane_name);
    out_ += "]}\n";
    return std::move(out_);
  }

 private:
  void Append(const Json& event) {
    if (!first_event_) out_ += ',';
    out_ += event.dump();
    first_event_ = false;
  }
  double Micros(uint64_t ns) const { return static_cast<double>(ns - origin_ns_) / 1000.0; }
  static double Duration(uint64_t begin_ns, uint64_t end_ns) {
    return end_ns >= begin_ns ? static_cast<double>(end_ns - begin_ns) / 1000.0 : 0.0;
  }
  void NameLane(uint32_t tid, const std::string& name, uint32_t pid = 0) {
    lane_names_.push_back(Json{{"name", "thread_name"},
                               {"ph", "M"},
                               {"pid", pid},
                               {"tid", tid},
                               {"args", {{"name", name}}}});
  }
  void NameProcess(uint32_t pid, const std::string& name) {
    lane_names_.push_back(
        Json{{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}});
  }

  void WriteScopes() {
    // Lanes in the order of each thread's first scope; events in order of begin, outer first.
    std::vector<const v1::ScopeEvent*> scopes;
    for (const v1::ScopeEvent& e : trace_.scope_events()) scopes.push_back(&e);
    std::stable_sort(scopes.begin(), scopes.end(), [](const auto* a, const auto* b) {
      return a->begin_ns() != b->begin_ns() ? a->begin_ns() < b->begin_ns()
                                            : a->end_ns() > b->end_ns();
    });
    std::map<std::pair<uint64_t, uint32_t>, uint32_t> lanes;
    uint64_t scope_id = 0;
    for (const v1::ScopeEvent* e : scopes) {
      auto [lane, added] = lanes.try_emplace({e->process_id(), e->tid()}, lanes.size());
      if (added) NameLane(lane->second, "CPU Thread " + std::to_string(lane->second));
      Append(Json{
          {"name", names_.Name(e->node_id())},
          {"cat", "scope"},
          {"ph", "X"},
          {"ts", Micros(e->begin_ns())},
          {"dur", Duration(e->begin_ns(), e->end_ns())},
          {"pid", 0},
          {"tid", lane->second},
          {"args", {{"call_stack", names_.CallStack(e->node_id())}, {"scope_id", scope_id++}}}});
      scopes_by_node_[{e->process_id(), e->node_id()}].push_back(
          {e->begin_ns(), e->end_ns(), lane->second});
    }
  }

  // The latest instance of scope `node` in `process` that began at or before `start_ns`.
  const PlacedScope* LaunchingScope(uint64_t process, uint32_t node, uint64_t start_ns) const {
    auto it = scopes_by_node_.find({process, node});
    if (it == scopes_by_node_.end()) return nullptr;
    const std::vector<PlacedScope>& placed = it->second;  // sorted by begin
    auto after = std::upper_bound(placed.begin(), placed.end(), start_ns,
                                  [](uint64_t t, const PlacedScope& s) { return t < s.begin_ns; });
    return after == placed.begin() ? nullptr : &*(after - 1);
  }

  // Whether every GPU event comes from one process and device: then a stream's lane is its
  // number, as in Proton's traces; else streams of different processes (the ranks of a job, each
  // with its stream 7) or devices would share a lane.
  static bool OneProcessAndDevice(const std::vector<const v1::GpuEvent*>& gpu) {
    return std::all_of(gpu.begin(), gpu.end(), [&](const v1::GpuEvent* e) {
      return e->process_id() == gpu.front()->process_id() &&
             e->device_id() == gpu.front()->device_id();
    });
  }

  void WriteGpuEvents() {
    std::vector<const v1::GpuEvent*> gpu;
    for (const v1::GpuEvent& e : trace_.gpu_events()) gpu.push_back(&e);
    std::stable_sort(gpu.begin(), gpu.end(),
                     [](const auto* a, const auto* b) { return a->start_ns() < b->start_ns(); });
    const bool one_device = OneProcessAndDevice(gpu);
    std::map<std::tuple<uint64_t, uint32_t, uint32_t>, uint32_t> lanes;
    uint64_t flow_id = 0;
    for (const v1::GpuEvent* e : gpu) {
      auto [it, added] = lanes.try_emplace(
          {e->process_id(), e->device_id(), e->stream_id()},
          kGpuStreamLaneBase + (one_device ? e->stream_id() : static_cast<uint32_t>(lanes.size())));
      const uint32_t lane = it->second;
      if (added) {
        NameLane(lane, one_device
                           ? "GPU Stream " + std::to_string(e->stream_id())
                           : absl::StrCat("GPU Stream ", e->stream_id(), " (process ",
                                          e->process_id(), ", device ", e->device_id(), ")"));
      }
      Append(Json{{"name", names_.Name(e->node_id())},
                  {"cat", Category(e->kind())},
                  {"ph", "X"},
                  {"ts", Micros(e->start_ns())},
                  {"dur", Duration(e->start_ns(), e->end_ns())},
                  {"pid", 0},
                  {"tid", lane},
                  {"args",
                   {{"call_stack", names_.CallStack(e->node_id())},
                    {"device_id", e->device_id()},
                    {"stream_id", e->stream_id()},
                    {"correlation_id", e->correlation_id()}}}});
      const PlacedScope* launch =
          LaunchingScope(e->process_id(), names_.Parent(e->node_id()), e->start_ns());
      if (launch == nullptr) continue;
      const uint64_t launch_ns = std::min(e->start_ns(), launch->end_ns);
      ++flow_id;
      Append(Json{{"name", "launch"},
                  {"cat", "flow"},
                  {"ph", "s"},
                  {"id", flow_id},
                  {"ts", Micros(launch_ns)},
                  {"pid", 0},
                  {"tid", launch->lane}});
      Append(Json{{"name", "launch"},
                  {"cat", "flow"},
                  {"ph", "f"},
                  {"bp", "e"},
                  {"id", flow_id},
                  {"ts", Micros(e->start_ns())},
                  {"pid", 0},
                  {"tid", lane}});
    }
  }

  // In-kernel intervals: each SM of each process's devices is a process (pid 1, 2, ... in order),
  // each warp of each CTA that ran there a thread ("CTA 5 warp 2"), in the order of the CTAs and
  // warps, with more lines for a warp whose intervals overlap without nesting.
  void WriteKernelScopes() {
    std::vector<const v1::KernelScopeEvent*> events;
    for (const v1::KernelScopeEvent& e : trace_.kernel_scope_events()) events.push_back(&e);
    std::stable_sort(events.begin(), events.end(), [](const auto* a, const auto* b) {
      const WarpLane lane_a = WarpLaneOf(*a), lane_b = WarpLaneOf(*b);
      if (lane_a != lane_b) return lane_a < lane_b;
      return a->start_ns() != b->start_ns() ? a->start_ns() < b->start_ns()
                                            : a->end_ns() > b->end_ns();
    });
    std::vector<std::pair<WarpLane, const v1::KernelScopeEvent*>> placed;
    std::vector<std::vector<uint64_t>> lines;
    for (size_t i = 0; i < events.size(); ++i) {
      if (i == 0 || WarpLaneOf(*events[i]) != WarpLaneOf(*events[i - 1])) lines.clear();
      WarpLane lane = WarpLaneOf(*events[i]);
      lane.line = AssignLine(*events[i], lines);
      placed.push_back({lane, events[i]});
    }
    const bool many_processes =
        !events.empty() && events.front()->process_id() != events.back()->process_id();
    std::map<std::tuple<uint64_t, uint32_t, uint32_t>, uint32_t> sm_pids;
    std::map<WarpLane, uint32_t> tids;
    for (const auto& [lane, e] : placed) tids.try_emplace(lane, 0);
    std::map<uint32_t, uint32_t> next_tid;  // by SM pid
    for (auto& [lane, tid] : tids) {
      auto [sm, added] = sm_pids.try_emplace({lane.process_id, lane.device_id, lane.sm_id},
                                             static_cast<uint32_t>(sm_pids.size() + 1));
      if (added) {
        NameProcess(sm->second,
                    "GPU " + std::to_string(lane.device_id) + " SM " + std::to_string(lane.sm_id) +
                        (many_processes ? ", process " + std::to_string(lane.process_id) : ""));
      }
      tid = next_tid[sm->second]++;
      NameLane(tid,
               "CTA " + std::to_string(lane.block_id) + " warp " + std::to_string(lane.warp_id) +
                   (lane.line > 0 ? " (overlap " + std::to_string(lane.line) + ")" : ""),
               sm->second);
    }
    for (const auto& [lane, e] : placed) {
      Append(Json{{"name", names_.Name(e->node_id())},
                  {"cat", "kernel_scope"},
                  {"ph", "X"},
                  {"ts", Micros(e->start_ns())},
                  {"dur", Duration(e->start_ns(), e->end_ns())},
                  {"pid", sm_pids.at({lane.process_id, lane.device_id, lane.sm_id})},
                  {"tid", tids.at(lane)},
                  {"args",
                   {{"call_stack", names_.CallStack(e->node_id())},
                    {"cycles", e->cycles()},
                    {"device_id", e->device_id()},
                    {"sm_id", e->sm_id()},
                    {"block_id", e->block_id()},
                    {"warp_id", e->warp_id()},
                    {"buffer", e->buffer()}}}});
    }
  }

  const v1::Trace& trace_;
  NodeNames names_;
  uint64_t origin_ns_ = std::numeric_limits<uint64_t>::max();
  std::string out_;
  bool first_event_ = true;
  std::vector<Json> lane_names_;
  // By (process, node), in order of begin.
  absl::flat_hash_map<std::pair<uint64_t, uint32_t>, std::vector<PlacedScope>> scopes_by_node_;
};

}  // namespace

std::string RenderChromeTrace(const v1::Trace& trace) { return ChromeTraceWriter(trace).Render(); }

}  // namespace protond::view
