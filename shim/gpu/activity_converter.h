// Turns CUPTI activity records (kernels, copies, sets) into protond's GPU activity records:
// attributes each to the context its launch was made from (through the correlation map), or for
// work replayed from a CUDA graph to "launch context -> <captured_at> -> capture context", as
// Proton does; names a kernel launched from a launch frame after the frame (Proton's launch
// hook); interns kernel names; moves CUPTI's timestamps onto CLOCK_MONOTONIC. Used by one
// buffer-completion thread at a time (the caller serializes).
#ifndef PROTOND_SHIM_GPU_ACTIVITY_CONVERTER_H_
#define PROTOND_SHIM_GPU_ACTIVITY_CONVERTER_H_

#include <cupti_activity.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/record/record_format.h"
#include "shim/gpu/correlation_map.h"
#include "shim/gpu/gpu_api.h"

namespace protond::shim::gpu {

inline constexpr char kCapturedAtFrame[] = "<captured_at>";

// Where each CUDA graph node was created: the context current on the creating thread (during
// stream capture, the capturing thread's scopes). Filled from CUPTI's resource callbacks on
// application threads; read by the converter. Thread-safe.
//
// A program may destroy a graph while records of its replays are still on their way (they are
// converted when CUPTI hands over a buffer), so a destroyed node is only retired, and forgotten
// once its records must have arrived.
class GraphCaptures {
 public:
  void NodeCreated(uint64_t node_id, uint32_t context_id);
  // Instantiating a graph clones its nodes: the clone keeps the original's context.
  void NodeCloned(uint64_t node_id, uint64_t original_id);
  void NodeDestroyed(uint64_t node_id, uint64_t now_ns);
  // Forgets the nodes destroyed before `before_ns`.
  void ForgetRetired(uint64_t before_ns);
  std::optional<uint32_t> CaptureContext(uint64_t node_id) const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, uint32_t> contexts_;
  std::deque<std::pair<uint64_t, uint64_t>> retired_;  // (destroyed at, node), oldest first
};

// What the converter could not attribute exactly, for the session's problems.
struct ConverterStats {
  uint64_t launches_not_seen = 0;  // no launch callback for the correlation id: under ROOT
  uint64_t captures_not_seen = 0;  // graph work captured before tracing: under the launch
  uint64_t incomplete = 0;         // flushed before the GPU finished it: dropped
};

class ActivityConverter {
 public:
  // `clock_offset_ns` is CLOCK_MONOTONIC minus cuptiGetTimestamp(), taken once at start.
  ActivityConverter(const ProtondGpuHost& host, const CorrelationMap& correlations,
                    const GraphCaptures& graphs, int64_t clock_offset_ns)
      : host_(host),
        correlations_(correlations),
        graphs_(graphs),
        clock_offset_ns_(clock_offset_ns) {}

  // The record for one CUPTI activity, or nullopt for kinds protond does not record and for
  // incomplete ones (counted). `*recording_set` is the one taken at its launch, kLaunchNotSeen
  // when the launch was not seen.
  std::optional<record::GpuActivityRecord> Convert(const CUpti_Activity& activity,
                                                   uint32_t* recording_set);

  const ConverterStats& stats() const { return stats_; }
  // The name id of the CUDA function a kernel activity ran (a launch frame may have given its
  // record another name).
  uint32_t FunctionNameId(const CUpti_ActivityKernel10& kernel);

 private:
  struct Common {
    record::Kind kind;
    uint8_t flags;
    uint64_t start, end, bytes, graph_node_id;
    uint32_t correlation_id, device_id, stream_id, graph_id;
  };
  // The record, attributed; for work launched from a launch frame, name_id is the frame's
  // kernel name.
  std::optional<record::GpuActivityRecord> Make(const Common& common, uint32_t* recording_set);
  // The launch's context and recording set; ROOT and kLaunchNotSeen for a launch not seen.
  Launch LaunchOf(uint32_t correlation_id);
  // host_.launch_target, remembered.
  uint32_t LaunchTarget(uint32_t context, uint32_t* kernel_name_id);
  uint32_t CapturedContext(uint32_t launch_context, uint32_t capture_context);
  uint32_t KernelNameId(const char* name);

  const ProtondGpuHost& host_;
  const CorrelationMap& correlations_;
  const GraphCaptures& graphs_;
  const int64_t clock_offset_ns_;
  ConverterStats stats_;
  // CUPTI shares one name pointer among a kernel's records; the text is checked as well, in case
  // a pointer is reused after a module unloads.
  std::unordered_map<const char*, std::pair<std::string, uint32_t>> kernel_names_;
  std::unordered_map<uint64_t, uint32_t> captured_paths_;  // (launch << 32 | capture) -> context
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> launch_targets_;
};

}  // namespace protond::shim::gpu

#endif  // PROTOND_SHIM_GPU_ACTIVITY_CONVERTER_H_
