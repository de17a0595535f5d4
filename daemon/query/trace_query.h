// Builds the API's view of a trace session from the store: the tree's nodes that name the events,
// then the events, split into chunks small enough for one gRPC message each.
#ifndef PROTOND_DAEMON_QUERY_TRACE_QUERY_H_
#define PROTOND_DAEMON_QUERY_TRACE_QUERY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "daemon/store/store.h"
#include "protond.pb.h"

namespace protond::query {

// About 40 bytes an event: a chunk stays well under gRPC's default 4 MiB message limit.
inline constexpr size_t kTraceEventsPerChunk = 32768;

// At least one chunk; the first carries `clock_offset_ns` and the nodes, each chunk at most
// `events_per_chunk` events (scope events first, then GPU events, then in-kernel scope events).
std::vector<v1::Trace> BuildTraceChunks(const store::StoredTrace& stored, int64_t clock_offset_ns,
                                        size_t events_per_chunk = kTraceEventsPerChunk);

}  // namespace protond::query

#endif  // PROTOND_DAEMON_QUERY_TRACE_QUERY_H_
