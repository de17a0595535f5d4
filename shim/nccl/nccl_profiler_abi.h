// NCCL's profiler plugin interface, version 5 (NCCL 2.28), as far as protond uses it: the table a
// plugin exports as `ncclProfiler_v5` and the part of the event descriptor that describes a
// collective call. NCCL loads the library that NCCL_PROFILER_PLUGIN names, looks up the newest
// `ncclProfiler_vN` it knows, and calls through it; the layouts below must match NCCL's byte for
// byte (the offsets are pinned by static_asserts in collective_plugin.cc). C, for the front.
#ifndef PROTOND_SHIM_NCCL_NCCL_PROFILER_ABI_H_
#define PROTOND_SHIM_NCCL_NCCL_PROFILER_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// ncclResult_t: 0 is success. Only init may fail, which turns the plugin off.
typedef int protond_nccl_result;
#define PROTOND_NCCL_SUCCESS 0
#define PROTOND_NCCL_SYSTEM_ERROR 2

// Event types: the bits of the activation mask and the descriptor's `type`.
#define PROTOND_NCCL_PROFILE_COLL (1 << 1)  // a collective call, on the host

// NCCL's logger (ncclDebugLogger_t); the plugin does not log through it.
typedef void (*protond_nccl_logger)(int level, unsigned long flags, const char* file, int line,
                                    const char* format, ...);

// A collective's fields in the descriptor (its `coll` member).
typedef struct protond_nccl_coll_v5 {
  uint64_t seq_number;  // NCCL's count of this function's calls in the communicator
  const char* func;     // "AllReduce"
  const void* send_buffer;
  void* recv_buffer;
  size_t count;  // elements
  int root;
  const char* datatype;  // "ncclFloat32"
  uint8_t channels;
  uint8_t warps;
  const char* algorithm;  // "RING"
  const char* protocol;   // "LL"
  void* parent_group;
} protond_nccl_coll_v5;

// The event descriptor NCCL passes to startEvent. Its union has more members, for other event
// types, which the plugin never reads (NCCL asks only for collectives).
typedef struct protond_nccl_event_v5 {
  uint64_t type;  // PROTOND_NCCL_PROFILE_*
  void* parent;
  int rank;
  union {
    protond_nccl_coll_v5 coll;
  } u;
} protond_nccl_event_v5;

typedef struct protond_nccl_profiler_v5 {
  const char* name;
  protond_nccl_result (*init)(void** context, uint64_t comm_hash, int* activation_mask,
                              const char* comm_name, int nodes, int nranks, int rank,
                              protond_nccl_logger logger);
  protond_nccl_result (*start_event)(void* context, void** event, protond_nccl_event_v5* descr);
  protond_nccl_result (*stop_event)(void* event);
  protond_nccl_result (*record_event_state)(void* event, int state, void* state_args);
  protond_nccl_result (*finalize)(void* context);
} protond_nccl_profiler_v5;

#ifdef __cplusplus
}
#endif

#endif  // PROTOND_SHIM_NCCL_NCCL_PROFILER_ABI_H_
