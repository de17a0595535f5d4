// The contract between the two halves of the shim. libprotond_shim.so, the file that programs
// preload (front.cc), links nothing but the C library, so that a short process that never
// records pays about what a bare process does; libprotond_shim_core.so, beside it, holds
// everything else (the ring, the recorder, the control loader, Abseil) and is loaded by the front
// on the first call of protond/shim.h, at CUDA's or NVTX's injection, when protonctl run named a
// session, or once the process has lived PROTOND_CONTROL_DELAY_MS.
//
// PROTOND_SHIM_CALLS lists every function of protond/shim.h that the front forwards, so that the
// table, the core's filling of it and the front's forwarders are made from one list:
//   X(return type, name, (parameters), (arguments), value when there is no core)
// "No core" is a forked child of a process whose core was not loaded, or a core that failed to
// load; recording calls then answer as with no session running.
#ifndef PROTOND_SHIM_FRONT_CORE_API_H_
#define PROTOND_SHIM_FRONT_CORE_API_H_

#include <stddef.h>
#include <stdint.h>

#include "protond/shim.h"
#include "shim/nccl/nccl_profiler_abi.h"

#define PROTOND_SHIM_CALLS(X)                                                                      \
  X(protond_result, protond_scope_enter, (const char* name), (name), PROTOND_INACTIVE)             \
  X(protond_result, protond_scope_exit, (const char* name), (name), PROTOND_INACTIVE)              \
  X(protond_result, protond_metric_int64, (const char* name, int64_t value), (name, value),        \
    PROTOND_INACTIVE)                                                                              \
  X(protond_result, protond_metric_double, (const char* name, double value), (name, value),        \
    PROTOND_INACTIVE)                                                                              \
  X(protond_result, protond_metric_int64_vector,                                                   \
    (const char* name, const int64_t* values, size_t count), (name, values, count),                \
    PROTOND_INACTIVE)                                                                              \
  X(protond_result, protond_metric_double_vector,                                                  \
    (const char* name, const double* values, size_t count), (name, values, count),                 \
    PROTOND_INACTIVE)                                                                              \
  X(protond_result, protond_state_enter, (const char* name), (name), PROTOND_INACTIVE)             \
  X(protond_result, protond_state_exit, (void), (), PROTOND_INACTIVE)                              \
  X(protond_result, protond_session_start, (const char* name, uint64_t* session_id),               \
    (name, session_id), PROTOND_ERR_UNAVAILABLE)                                                   \
  X(protond_result, protond_session_start_with_data,                                               \
    (const char* name, const char* data, uint64_t* session_id), (name, data, session_id),          \
    PROTOND_ERR_UNAVAILABLE)                                                                       \
  X(protond_result, protond_session_start_with_mode,                                               \
    (const char* name, const char* data, const char* mode, uint64_t* session_id),                  \
    (name, data, mode, session_id), PROTOND_ERR_UNAVAILABLE)                                       \
  X(protond_result, protond_session_stop, (uint64_t session_id), (session_id),                     \
    PROTOND_ERR_UNAVAILABLE)                                                                       \
  X(protond_result, protond_flush, (void), (), PROTOND_ERR_UNAVAILABLE)                            \
  X(protond_result, protond_session_pause, (uint64_t session_id), (session_id),                    \
    PROTOND_ERR_UNAVAILABLE)                                                                       \
  X(protond_result, protond_session_resume, (uint64_t session_id), (session_id),                   \
    PROTOND_ERR_UNAVAILABLE)                                                                       \
  X(protond_result, protond_session_export,                                                        \
    (uint64_t session_id, const char* format, const char* path), (session_id, format, path),       \
    PROTOND_ERR_UNAVAILABLE)                                                                       \
  X(protond_result, protond_launch_enter, (const char* name), (name), PROTOND_INACTIVE)            \
  X(protond_result, protond_launch_exit, (void), (), PROTOND_INACTIVE)                             \
  X(protond_result, protond_set_context_provider, (protond_context_provider provider), (provider), \
    PROTOND_INACTIVE)                                                                              \
  X(protond_result, protond_use_python_context, (const char* excluded_prefix), (excluded_prefix),  \
    PROTOND_INACTIVE)                                                                              \
  X(uint32_t, protond_context_intern, (uint32_t parent, const char* name), (parent, name),         \
    PROTOND_NO_CONTEXT)                                                                            \
  X(uint64_t, protond_current_session, (void), (), 0)                                              \
  X(protond_result, protond_shim_attach, (const char* socket_path), (socket_path),                 \
    PROTOND_ERR_UNAVAILABLE)                                                                       \
  X(protond_result, protond_instrumentation_buffer,                                                \
    (const char* kernel_name, uint32_t device_id, uint32_t layout, const char* const* scope_names, \
     uint32_t num_scopes, uint32_t block_bytes, uint32_t num_warps,                                \
     const uint32_t* profiled_warps, uint32_t num_profiled_warps, const void* buffer,              \
     uint64_t buffer_bytes),                                                                       \
    (kernel_name, device_id, layout, scope_names, num_scopes, block_bytes, num_warps,              \
     profiled_warps, num_profiled_warps, buffer, buffer_bytes),                                    \
    PROTOND_ERR_UNAVAILABLE)

#ifdef __cplusplus
extern "C" {
#endif

// NVTX's type of the argument of InitializeInjectionNvtx2, without NVTX's headers.
typedef const void* (*protond_nvtx_get_export_table)(uint32_t export_table_id);

#define PROTOND_SHIM_CALL_FIELD(type, name, parameters, arguments, without_core) \
  type(*name) parameters;

// What the core gives the front: its ABI version (the front refuses a core built for another) and
// a function per call, plus the entry points of the injections, NCCL's profiler plugin and the
// last error.
typedef struct ProtondShimCore {
  int abi_version;
  PROTOND_SHIM_CALLS(PROTOND_SHIM_CALL_FIELD)
  const char* (*protond_last_error)(void);
  int (*initialize_cuda_injection)(void);
  int (*initialize_nvtx_injection)(protond_nvtx_get_export_table get_export_table);
  const protond_nccl_profiler_v5* nccl_profiler_v5;
} ProtondShimCore;

#undef PROTOND_SHIM_CALL_FIELD

// What the front tells the core when it starts it.
typedef struct ProtondShimCoreStart {
  uint32_t control_delay_ms;  // how much longer to wait before reaching protond
} ProtondShimCoreStart;

// The core exports two functions. The table's is pure: the front reads the ABI version from it
// before anything starts. The start sets the shim up (the region, the session protonctl run named,
// the control loader) and returns the table; the front calls it once. It returns NULL when
// profiling cannot run in this process, with the reason in `error` (NUL-terminated).
#define PROTOND_SHIM_CORE_TABLE_SYMBOL "protond_shim_core_table"
typedef const ProtondShimCore* (*protond_shim_core_table_function)(void);
#define PROTOND_SHIM_CORE_START_SYMBOL "protond_shim_core_start"
typedef const ProtondShimCore* (*protond_shim_core_start_function)(
    const ProtondShimCoreStart* start, char* error, size_t error_bytes);

#ifdef __cplusplus
}
#endif

#endif  // PROTOND_SHIM_FRONT_CORE_API_H_
