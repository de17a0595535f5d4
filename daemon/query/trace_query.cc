#include "daemon/query/trace_query.h"

#include <algorithm>
#include <optional>
#include <span>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace protond::query {
namespace {

bool SameBuffer(const store::KernelScopeEventRow& a, const store::KernelScopeEventRow& b) {
  return a.process_id == b.process_id && a.lane == b.lane && a.record_pos == b.record_pos;
}

// The kernels of a trace by launch, to place each instrumentation buffer beside its launch.
class LaunchIndex {
 public:
  explicit LaunchIndex(const store::StoredTrace& stored) {
    for (const store::NodeRow& node : stored.nodes) parents_[node.node_id] = node.parent_id;
    for (const store::GpuEventRow& row : stored.gpu_events) {
      if (row.kind == static_cast<int>(v1::GpuEvent::KERNEL)) {
        kernels_[{row.process_id, row.correlation_id}] = &row;
      }
    }
  }

  // How far to move one buffer's intervals (on the GPU's global timer) onto the trace's clock:
  // its earliest start goes to its kernel's start as CUPTI timed it (CUPTI's clock and the global
  // timer run at one rate but may be apart by a fraction of a millisecond, measured on the H100).
  // nullopt when the launch is not in the trace, or launched another kernel than the scopes'.
  std::optional<int64_t> ShiftOf(std::span<const store::KernelScopeEventRow> rows) const {
    auto kernel = kernels_.find({rows.front().process_id, rows.front().correlation_id});
    if (kernel == kernels_.end() || !IsUnder(rows.front().node_id, kernel->second->node_id)) {
      return std::nullopt;
    }
    uint64_t earliest = rows.front().start_ns;
    for (const store::KernelScopeEventRow& row : rows) earliest = std::min(earliest, row.start_ns);
    return static_cast<int64_t>(kernel->second->start_ns) - static_cast<int64_t>(earliest);
  }

 private:
  bool IsUnder(uint32_t node, uint32_t ancestor) const {
    for (size_t steps = 0; node != 0 && steps <= parents_.size(); ++steps) {
      auto parent = parents_.find(node);
      if (parent == parents_.end()) return false;
      node = parent->second;
      if (node == ancestor) return true;
    }
    return false;
  }

  absl::flat_hash_map<uint32_t, uint32_t> parents_;
  absl::flat_hash_map<std::pair<uint64_t, uint32_t>, const store::GpuEventRow*> kernels_;
};

}  // namespace

std::vector<v1::Trace> BuildTraceChunks(const store::StoredTrace& stored, int64_t clock_offset_ns,
                                        size_t events_per_chunk) {
  std::vector<v1::Trace> chunks(1);
  chunks[0].set_clock_offset_ns(clock_offset_ns);
  for (const store::NodeRow& row : stored.nodes) {
    v1::TreeNode* node = chunks[0].add_nodes();
    node->set_id(row.node_id);
    node->set_parent_id(row.parent_id);
    node->set_name(row.name);
  }
  size_t in_chunk = 0;
  auto chunk = [&]() -> v1::Trace& {
    if (in_chunk == events_per_chunk) {
      chunks.emplace_back();
      in_chunk = 0;
    }
    ++in_chunk;
    return chunks.back();
  };
  for (const store::ScopeEventRow& row : stored.scope_events) {
    v1::ScopeEvent* event = chunk().add_scope_events();
    event->set_process_id(row.process_id);
    event->set_tid(row.tid);
    event->set_node_id(row.node_id);
    event->set_begin_ns(row.begin_ns);
    event->set_end_ns(row.end_ns);
  }
  for (const store::GpuEventRow& row : stored.gpu_events) {
    v1::GpuEvent* event = chunk().add_gpu_events();
    event->set_process_id(row.process_id);
    event->set_node_id(row.node_id);
    // The store holds the record kinds 10-12, which the enum's values are.
    event->set_kind(v1::GpuEvent::Kind_IsValid(row.kind) ? static_cast<v1::GpuEvent::Kind>(row.kind)
                                                         : v1::GpuEvent::KIND_UNSPECIFIED);
    event->set_start_ns(row.start_ns);
    event->set_end_ns(row.end_ns);
    event->set_device_id(row.device_id);
    event->set_stream_id(row.stream_id);
    event->set_correlation_id(row.correlation_id);
  }
  LaunchIndex launches(stored);
  uint64_t buffer = 0;
  for (size_t first = 0; first < stored.kernel_scope_events.size();) {
    // The rows of one buffer are together (by process, lane and position).
    size_t last = first + 1;
    while (last < stored.kernel_scope_events.size() &&
           SameBuffer(stored.kernel_scope_events[first], stored.kernel_scope_events[last])) {
      ++last;
    }
    const std::span<const store::KernelScopeEventRow> rows(&stored.kernel_scope_events[first],
                                                           last - first);
    first = last;
    const std::optional<int64_t> shift = launches.ShiftOf(rows);
    if (!shift) {
      chunks[0].set_unplaced_kernel_scope_events(chunks[0].unplaced_kernel_scope_events() +
                                                 rows.size());
      continue;
    }
    ++buffer;
    for (const store::KernelScopeEventRow& row : rows) {
      v1::KernelScopeEvent* event = chunk().add_kernel_scope_events();
      event->set_process_id(row.process_id);
      event->set_node_id(row.node_id);
      event->set_device_id(row.device_id);
      event->set_sm_id(row.sm_id);
      event->set_block_id(row.block_id);
      event->set_warp_id(row.warp_id);
      event->set_start_ns(static_cast<uint64_t>(static_cast<int64_t>(row.start_ns) + *shift));
      event->set_end_ns(static_cast<uint64_t>(static_cast<int64_t>(row.end_ns) + *shift));
      event->set_cycles(row.cycles);
      event->set_buffer(buffer);
    }
  }
  chunks[0].set_event_count(stored.scope_events.size() + stored.gpu_events.size() +
                            stored.kernel_scope_events.size() -
                            chunks[0].unplaced_kernel_scope_events());
  return chunks;
}

}  // namespace protond::query
