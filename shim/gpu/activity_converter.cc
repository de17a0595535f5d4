#include "shim/gpu/activity_converter.h"

#include <cstring>
#include <vector>

namespace protond::shim::gpu {
namespace {

using record::Kind;

static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ==
                  static_cast<int>(record::CopyKind::kHostToDevice) &&
              CUPTI_ACTIVITY_MEMCPY_KIND_DTOD ==
                  static_cast<int>(record::CopyKind::kDeviceToDevice) &&
              CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == static_cast<int>(record::CopyKind::kPeerToPeer));

uint8_t CopyKindOf(uint8_t cupti_kind) {
  return cupti_kind <= record::kMaxCopyKind ? cupti_kind : 0;
}

uint32_t Dimension(int32_t value) { return value > 0 ? static_cast<uint32_t>(value) : 0; }

}  // namespace

void GraphCaptures::NodeCreated(uint64_t node_id, uint32_t context_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  contexts_[node_id] = context_id;
}

void GraphCaptures::NodeCloned(uint64_t node_id, uint64_t original_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto original = contexts_.find(original_id);
  if (original != contexts_.end()) contexts_[node_id] = original->second;
}

void GraphCaptures::NodeDestroyed(uint64_t node_id, uint64_t now_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  retired_.emplace_back(now_ns, node_id);
}

void GraphCaptures::ForgetRetired(uint64_t before_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  while (!retired_.empty() && retired_.front().first < before_ns) {
    contexts_.erase(retired_.front().second);
    retired_.pop_front();
  }
}

std::optional<uint32_t> GraphCaptures::CaptureContext(uint64_t node_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contexts_.find(node_id);
  if (it == contexts_.end()) return std::nullopt;
  return it->second;
}

std::optional<record::GpuActivityRecord> ActivityConverter::Convert(const CUpti_Activity& activity,
                                                                    uint32_t* recording_set) {
  switch (activity.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto& k = reinterpret_cast<const CUpti_ActivityKernel10&>(activity);
      std::optional<record::GpuActivityRecord> out =
          Make({Kind::kKernel, 0, k.start, k.end, 0, k.graphNodeId, k.correlationId, k.deviceId,
                k.streamId, k.graphId},
               recording_set);
      if (!out) return out;
      if (out->name_id == 0) out->name_id = FunctionNameId(k);
      const int32_t grid[3] = {k.gridX, k.gridY, k.gridZ};
      const int32_t block[3] = {k.blockX, k.blockY, k.blockZ};
      for (int i = 0; i < 3; ++i) {
        out->grid[i] = Dimension(grid[i]);
        out->block[i] = Dimension(block[i]);
      }
      return out;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& c = reinterpret_cast<const CUpti_ActivityMemcpy6&>(activity);
      return Make({Kind::kMemcpy, CopyKindOf(c.copyKind), c.start, c.end, c.bytes, c.graphNodeId,
                   c.correlationId, c.deviceId, c.streamId, c.graphId},
                  recording_set);
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto& c = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4&>(activity);
      return Make({Kind::kMemcpy, CopyKindOf(c.copyKind), c.start, c.end, c.bytes, c.graphNodeId,
                   c.correlationId, c.deviceId, c.streamId, c.graphId},
                  recording_set);
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& m = reinterpret_cast<const CUpti_ActivityMemset4&>(activity);
      return Make({Kind::kMemset, 0, m.start, m.end, m.bytes, m.graphNodeId, m.correlationId,
                   m.deviceId, m.streamId, m.graphId},
                  recording_set);
    }
    default:
      return std::nullopt;
  }
}

std::optional<record::GpuActivityRecord> ActivityConverter::Make(const Common& c,
                                                                 uint32_t* recording_set) {
  // A forced flush hands out work the GPU has not finished, with its times unset.
  if (c.start == 0 || c.end == 0) {
    stats_.incomplete++;
    return std::nullopt;
  }
  uint32_t kernel_name_id = 0;
  const Launch launch = LaunchOf(c.correlation_id);
  *recording_set = launch.recording_set;
  uint32_t context = LaunchTarget(launch.context_id, &kernel_name_id);
  if (c.graph_node_id != 0) {
    std::optional<uint32_t> capture = graphs_.CaptureContext(c.graph_node_id);
    if (capture) {
      // The graph's launch is not a kernel: a launch frame there names nothing.
      context = CapturedContext(context, LaunchTarget(*capture, &kernel_name_id));
    } else {
      stats_.captures_not_seen++;
    }
  }
  record::GpuActivityRecord out = record::MakeGpuActivity(c.kind, c.flags, context);
  if (c.kind == Kind::kKernel) out.name_id = kernel_name_id;
  out.start_ns = static_cast<uint64_t>(static_cast<int64_t>(c.start) + clock_offset_ns_);
  out.end_ns = static_cast<uint64_t>(static_cast<int64_t>(c.end) + clock_offset_ns_);
  out.bytes = c.bytes;
  out.graph_node_id = c.graph_node_id;
  out.correlation_id = c.correlation_id;
  out.device_id = c.device_id;
  out.stream_id = c.stream_id;
  out.graph_id = c.graph_id;
  return out;
}

Launch ActivityConverter::LaunchOf(uint32_t correlation_id) {
  std::optional<Launch> launch = correlations_.Find(correlation_id);
  if (launch) return *launch;
  stats_.launches_not_seen++;
  return {record::kRootContextId, kLaunchNotSeen};
}

uint32_t ActivityConverter::LaunchTarget(uint32_t context, uint32_t* kernel_name_id) {
  if (context == record::kRootContextId) {
    *kernel_name_id = 0;
    return context;
  }
  auto [it, inserted] = launch_targets_.try_emplace(context);
  if (inserted) it->second.first = host_.launch_target(context, &it->second.second);
  *kernel_name_id = it->second.second;
  return it->second.first;
}

uint32_t ActivityConverter::CapturedContext(uint32_t launch_context, uint32_t capture_context) {
  const uint64_t key = uint64_t{launch_context} << 32 | capture_context;
  auto [it, inserted] = captured_paths_.try_emplace(key, 0);
  if (!inserted) return it->second;
  std::vector<const char*> capture_path;  // innermost first
  for (uint32_t id = capture_context; id != record::kRootContextId;) {
    capture_path.push_back(host_.context_name(id, &id));
  }
  uint32_t context = host_.intern_context(launch_context, kCapturedAtFrame);
  for (auto name = capture_path.rbegin(); name != capture_path.rend(); ++name) {
    context = host_.intern_context(context, *name);
  }
  it->second = context;
  return context;
}

uint32_t ActivityConverter::FunctionNameId(const CUpti_ActivityKernel10& kernel) {
  return KernelNameId(kernel.name != nullptr ? kernel.name : "<unnamed kernel>");
}

uint32_t ActivityConverter::KernelNameId(const char* name) {
  auto [it, inserted] = kernel_names_.try_emplace(name);
  if (inserted || it->second.first != name) {
    it->second = {name, host_.intern_kernel_name(name)};
  }
  return it->second.second;
}

}  // namespace protond::shim::gpu
