#include "daemon/query/trace_query.h"

namespace protond::query {

std::vector<v1::Trace> BuildTraceChunks(const store::StoredTrace& stored, int64_t clock_offset_ns,
                                        size_t events_per_chunk) {
  std::vector<v1::Trace> chunks(1);
  chunks[0].set_clock_offset_ns(clock_offset_ns);
  chunks[0].set_event_count(stored.scope_events.size() + stored.gpu_events.size());
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
  return chunks;
}

}  // namespace protond::query
