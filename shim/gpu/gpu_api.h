// The internal ABI between libprotond_shim.so and libprotond_cupti.so, the GPU tracer. The shim
// loads the tracer with dlopen only when a session runs in a process that uses CUDA, so a process
// that is idle, or never touches a GPU, never loads CUPTI. The tracer reaches the shim's recorder
// (scope stacks, interned names, lanes) through the host table the shim passes in. Both libraries
// come from one build; kGpuApiVersion guards against mixing builds.
#ifndef PROTOND_SHIM_GPU_GPU_API_H_
#define PROTOND_SHIM_GPU_GPU_API_H_

#include <stddef.h>
#include <stdint.h>

#include "common/record/record_format.h"

extern "C" {

inline constexpr uint32_t kGpuApiVersion = 7;
inline constexpr char kGpuLibraryName[] = "libprotond_cupti.so";
inline constexpr char kGpuApiSymbol[] = "protond_gpu_api_v7";

// What the shim offers the tracer. Every function may be called from any thread.
struct ProtondGpuHost {
  // The calling thread's open launch frame, else its innermost scope (record::kRootContextId
  // when none).
  uint32_t (*current_context)();
  // The number of the current recording set: which sessions record now. Taken at each launch,
  // so that the launch's work goes, when it is delivered, to the sessions that recorded then.
  uint32_t (*recording_set)();
  // A followed CUDA call returned on the calling thread (`kernel_launch`: it launched a kernel,
  // and the thread's launch frame, if one is open, is closed).
  void (*api_returned)(int kernel_launch);
  // Where GPU work attributed to `context` goes: for a launch frame, its parent, with
  // `*kernel_name_id` set to the frame's name as a kernel name (the work is that node); for any
  // other context, `context` itself, with `*kernel_name_id` = 0.
  uint32_t (*launch_target)(uint32_t context, uint32_t* kernel_name_id);
  // The context `name` under `parent`, interned.
  uint32_t (*intern_context)(uint32_t parent, const char* name);
  // A context's name (stable for the life of the process) and its parent.
  const char* (*context_name)(uint32_t context, uint32_t* parent);
  // The id of a kernel name (record::NameClass::kKernel).
  uint32_t (*intern_kernel_name)(const char* name);
  // The id of a name of another class: record::NameClass::kSourceLine or kStallReason.
  uint32_t (*intern_name)(const char* name, uint8_t name_class);
  // Writes into the calling thread's lanes of the sessions that recorded at the launch (the
  // `recording_set` taken then, or kLaunchNotSeen: those recording now) and have not finished
  // stopping (a stopping session still takes what its GPU work delivers); a record
  // that does not fit is counted as dropped. Definitions of the record's context and name are
  // written first.
  void (*write_activity)(const protond::record::GpuActivityRecord* activity,
                         uint32_t recording_set);
  // Writes PC samples into the calling thread's lanes of the sessions recording or stopping, after
  // the definitions of their context and names; waits for room as write_activity does.
  void (*write_pc_sample)(const protond::record::PcSampleRecord* sample);
  void (*write_notice)(const char* text);
  // Adds `count` records lost before they reached the shim (CUPTI's own drops).
  void (*count_dropped)(uint64_t count);
  // Writes a kDeviceInfo record for CUDA device `device_id` (its ordinal) into the calling
  // thread's lane, for the running session; `device`'s header and name_bytes are filled in there.
  void (*write_device_info)(uint32_t device_id, const protond::record::DeviceInfoRecord* device,
                            const char* name);
  // Writes the cubin of a PC-sampled module (a record::BlobClass::kCubin blob) into the calling
  // thread's lanes of the sessions recording or stopping, waiting for room as write_activity does.
  void (*write_cubin)(uint64_t crc, const void* cubin, size_t bytes);
};

inline constexpr uint32_t kLaunchNotSeen = UINT32_MAX;

// What to collect beyond kernels, copies and sets.
struct ProtondGpuOptions {
  bool pc_sampling;
  uint32_t pc_sampling_period_log2;  // 0: CUPTI's default
};

struct ProtondGpuApi {
  uint32_t version;  // kGpuApiVersion
  // Subscribes to CUPTI, starts tracing kernels, copies and sets, and writes what each CUDA device
  // is. Returns false, with the reason in `error`, when CUPTI cannot be used (for example,
  // another tool holds it). Called again while started, it only turns on PC sampling if
  // `options` asks for it and it is off. PC sampling that cannot run (no permission to the
  // GPU's performance counters, an unsupported GPU) is a notice in the session, not a failure.
  bool (*start)(const ProtondGpuHost* host, const ProtondGpuOptions* options, char* error,
                size_t error_bytes);
  // Delivers every record CUPTI holds, then disables tracing and unsubscribes, so that another
  // tool may subscribe. Does nothing when not started.
  void (*stop)();
  // Delivers the records of completed buffers.
  void (*flush)();
  // While started: sets `*correlation_id` to CUPTI's correlation id of the calling thread's
  // latest kernel launch and returns true; false when the thread has launched none.
  bool (*last_launch)(uint32_t* correlation_id);
};

}  // extern "C"

#endif  // PROTOND_SHIM_GPU_GPU_API_H_
