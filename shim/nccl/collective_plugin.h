// NCCL's profiler plugin inside the shim's core: one record::CollectiveRecord per collective
// call NCCL makes while a session records (docs/jobs.md). The front exports NCCL's symbol
// (`ncclProfiler_v5`) and sets NCCL_PROFILER_PLUGIN to its own file, so NCCL loads the plugin at
// each communicator's creation; its calls come here through the core's table.
//
// Cost: NCCL calls the plugin for every collective, whether or not a session records (a call's
// activation mask is taken when the call is made, and a session may start at any moment).
// Without a session that is an atomic increment (the call's number); with one, an allocation,
// two clock reads, a read of the thread's latest launch and one record at the call's end.
#ifndef PROTOND_SHIM_NCCL_COLLECTIVE_PLUGIN_H_
#define PROTOND_SHIM_NCCL_COLLECTIVE_PLUGIN_H_

#include "shim/nccl/nccl_profiler_abi.h"
#include "shim/scopes/recorder.h"

namespace protond::shim {

// Where the plugin's calls find the recorder: the running shim's (shim.cc), a test's own.
// nullptr (the default, or the function's answer): nothing records.
using ActiveRecorderFunction = Recorder* (*)();
// The calling thread's latest kernel launch (CUPTI's correlation id), when GPU work is traced:
// GpuTracing::LastLaunch. NCCL starts a call's event right after launching the kernel that carries
// it, on the launching thread (or on CUDA's host-callback thread, which launches nothing), so
// that launch is the call's kernel. nullptr, or false from it: not known.
using LastLaunchFunction = bool (*)(uint32_t* correlation_id);
void SetCollectiveRecorder(ActiveRecorderFunction active_recorder,
                           LastLaunchFunction last_launch = nullptr);

// The plugin's table, as NCCL calls it (through the front's forwarders).
const protond_nccl_profiler_v5* CollectivePluginV5();

}  // namespace protond::shim

#endif  // PROTOND_SHIM_NCCL_COLLECTIVE_PLUGIN_H_
