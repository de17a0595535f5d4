// Proton's Chrome trace for a trace session (`proton.start(data="trace")`, then finalize writes
// `<name>.chrome_trace`), readable by chrome://tracing and Perfetto. The layout is the one
// PROTON_COMPAT.md describes: one object {"displayTimeUnit": "us", "baseTimeNanoseconds": epoch ns
// of ts 0, "traceEvents": [...]}; ts and dur in microseconds relative to the earliest event.
#ifndef PROTOND_VIEW_EXPORT_CHROME_TRACE_H_
#define PROTOND_VIEW_EXPORT_CHROME_TRACE_H_

#include <cstdint>
#include <string>

#include "protond.pb.h"

namespace protond::view {

// Lanes, all in pid 0: each CPU thread (a process and tid, in the order of their first event) is
// tid i, named "CPU Thread i"; each GPU stream s is tid kGpuStreamLaneBase + s, named
// "GPU Stream s", by "M" thread_name events. Where the GPU events come from several processes
// (a job's ranks) or devices, each (process, device, stream) is a lane of its own instead:
// tid kGpuStreamLaneBase + i in the order of their first event, named
// "GPU Stream s (process P, device D)", P being protond's process id.
inline constexpr uint32_t kGpuStreamLaneBase = 200000;

// Scopes are "X" events of cat "scope" named by their last frame, with args.call_stack (from
// "ROOT") and args.scope_id (one per instance). Kernels are cat "kernel" (copies "memcpy", sets
// "memset"), named by their last frame, with args.call_stack, device_id, stream_id and
// correlation_id. A GPU activity launched inside a scope gets a flow from the launching scope
// instance (ph "s" on its CPU lane, at the activity's start or the scope's end, whichever comes
// first) to the activity (ph "f", bp "e", on the stream's lane): the records say which scope
// launched the work, not which instance or when, so the instance is the latest one of that scope
// that began before the work started.
std::string RenderChromeTrace(const v1::Trace& trace);

}  // namespace protond::view

#endif  // PROTOND_VIEW_EXPORT_CHROME_TRACE_H_
