/* protond's shim: the C interface a profiled process uses to record scopes, metrics and states
 * into protond. libprotond_shim.so exports only these functions; it is loaded by LD_PRELOAD
 * (protonctl run), CUDA_INJECTION64_PATH, or dlopen (the Python package).
 *
 * Every function may be called from any thread at any time, returns quickly, never blocks on the
 * daemon (except session_start/stop/flush, which talk to it with a deadline), and never fails the
 * program: with no session running, recording calls do nothing and return PROTOND_INACTIVE. */
#ifndef PROTOND_SHIM_H_
#define PROTOND_SHIM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROTOND_SHIM_ABI_VERSION 11

typedef enum protond_result {
  PROTOND_OK = 0,
  PROTOND_INACTIVE = 1,             /* no session is running: nothing was recorded */
  PROTOND_DROPPED = 2,              /* the thread's lane was full: dropped and counted */
  PROTOND_ERR_INVALID_ARGUMENT = 3, /* a NULL or empty name, or a bad session id */
  PROTOND_ERR_METRIC_TYPE = 4,      /* the metric name was first given with another type */
  PROTOND_ERR_SCOPE_MISMATCH = 5,   /* exit names a scope that is not the innermost one */
  PROTOND_ERR_NO_SCOPE = 6,         /* exit or state exit with nothing open */
  PROTOND_ERR_UNAVAILABLE = 7,      /* the daemon could not be reached or refused */
} protond_result;

/* PROTOND_SHIM_ABI_VERSION of the loaded library. */
int protond_abi_version(void);

/* Scopes nest per thread; a scope's node in the call tree is its path from ROOT. `name` is
 * copied; exit's name may be NULL, else it must equal the innermost open scope's name. */
protond_result protond_scope_enter(const char* name);
protond_result protond_scope_exit(const char* name);

/* Adds a value to the innermost open scope (ROOT if none). Suffixes as in Proton: "(exc)"
 * exclusive, "(pty)" property (last value wins), none or "(inc)" summed. A name keeps the type it
 * was first given in this process. */
protond_result protond_metric_int64(const char* name, int64_t value);
protond_result protond_metric_double(const char* name, double value);

/* A vector metric, as Proton's list and tensor values: `count` values added element-wise to the
 * innermost open scope (ROOT if none), with the suffixes above. A name keeps the type (a vector
 * of int64 or of double, never a scalar) and the element count it was first given in this
 * process: another is PROTOND_ERR_METRIC_TYPE, with protond_last_error in Proton's words
 * ("size mismatch for metric v: current=3, new=2"). NULL values, or a count of 0 or past
 * PROTOND_MAX_VECTOR_METRIC_ELEMENTS (what one record holds), are
 * PROTOND_ERR_INVALID_ARGUMENT. (ABI version 10) */
#define PROTOND_MAX_VECTOR_METRIC_ELEMENTS 512
protond_result protond_metric_int64_vector(const char* name, const int64_t* values, size_t count);
protond_result protond_metric_double_vector(const char* name, const double* values, size_t count);

/* One state per thread (entering replaces the current one), as Proton's state(). */
protond_result protond_state_enter(const char* name);
protond_result protond_state_exit(void);

/* Starts a session in the daemon for this process and records into it; stops it. A process may
 * have up to 4 sessions open at once (as Proton's sessions): each gets every record written while
 * it records, and an exit only where its enter went. Starting a fifth fails with
 * PROTOND_ERR_UNAVAILABLE and the ids of the open ones. (Several sessions: ABI version 5; before,
 * a start replaced the session.)
 *
 * A stop returns at once: nothing the program does after it is recorded, while a thread of the
 * shim waits for CUPTI's last records of the session's GPU work and then tells the daemon, which
 * marks the session stopped once they are stored. protond_session_export of the session waits for
 * that; a program that exits waits for it at exit (PROTOND_EXIT_WAIT_MS, 3000 by default). A stop
 * that the daemon refuses or never hears of is reported on stderr, not returned. */
protond_result protond_session_start(const char* name, uint64_t* session_id);
protond_result protond_session_stop(uint64_t session_id);

/* Waits until the daemon has stored everything this process wrote so far, for all its sessions. */
protond_result protond_flush(void);

/* Proton's deactivate and activate: while paused, scopes and states still nest but nothing is
 * recorded (GPU work included), and the session stays open. PROTOND_ERR_INVALID_ARGUMENT when
 * `session_id` is not this process's session. A pause returns at once, as a stop does; the GPU
 * work launched before it still reaches the session, and protond_flush waits for it. (ABI
 * version 2) */
protond_result protond_session_pause(uint64_t session_id);
protond_result protond_session_resume(uint64_t session_id);

/* Writes session `session_id` (any session the caller may read) to `path` in `format`:
 * "hatchet" is Proton's Hatchet JSON of the stored tree, what proton.finalize() writes;
 * "hatchet_msgpack" the same content encoded as MessagePack, as newer Proton's
 * finalize(output_format="hatchet_msgpack") writes it (docs/export.md);
 * "chrome_trace" (ABI version 4) is Proton's Chrome trace of a session started with data "trace"
 * (protond_session_start_with_data), refused for any other session. This process's own session is
 * flushed first, and a stop of it still finishing is waited for. PROTOND_ERR_INVALID_ARGUMENT for
 * an unknown format or an empty path;
 * PROTOND_ERR_UNAVAILABLE when the daemon cannot be reached, refuses (no such session, not a
 * trace session), or the file cannot be written; protond_last_error says which. (ABI version 2) */
protond_result protond_session_export(uint64_t session_id, const char* format, const char* path);

/* Proton's kernel launch hook: launch_enter opens a launch frame on the calling thread. The
 * kernel the thread launches next is the node `name` under its innermost scope (instead of a
 * child named by the driver), and metrics given on the thread while the frame is open land on
 * that node, as "flops16" and "bytes" from a Triton kernel's launch_metadata do in Proton. The
 * frame closes when that kernel launch returns, or at launch_exit, whichever comes first. While
 * no GPU work is traced (no CUDA yet, CUPTI held by another tool, session paused) launch_enter
 * opens nothing and returns PROTOND_INACTIVE. PROTOND_ERR_NO_SCOPE when launch_exit finds no
 * frame open. (ABI version 3) */
protond_result protond_launch_enter(const char* name);
protond_result protond_launch_exit(void);

/* Proton's context="python": GPU work is attributed to the Python call stack that launched it.
 * The provider returns the context of GPU work launched on the calling thread, made with
 * protond_context_intern (0 is ROOT), or PROTOND_NO_CONTEXT to use the scope stack. The GPU
 * tracer calls it inside CUDA API calls (launches, copies, sets), on the calling thread, which
 * may be any thread: a Python provider (a ctypes callback) takes the GIL there, as Proton does.
 * A NULL provider goes back to the scope stack. (ABI version 4) */
#define PROTOND_NO_CONTEXT UINT32_MAX
typedef uint32_t (*protond_context_provider)(void);
protond_result protond_set_context_provider(protond_context_provider provider);
/* Proton's context="python" without a callback: the shim itself reads the launching thread's
 * Python frames inside each CUDA call, with CPython's API as the process has it (3.9 or later),
 * taking the GIL for the walk where the thread let it go, as a ctypes provider would. Frames of
 * files whose path starts with `excluded_prefix` (the caller's own package; NULL or "": none)
 * are left out; the first call's prefix holds for the life of the process.
 * protond_set_context_provider(NULL) goes back to the scope stack. PROTOND_ERR_UNAVAILABLE when
 * the process has no CPython (protond_last_error names what is missing). (ABI version 9) */
protond_result protond_use_python_context(const char* excluded_prefix);
/* The context `name` under context `parent` (0 is ROOT), interned: the same pair gives the same id
 * for the life of the process. PROTOND_NO_CONTEXT for a NULL or empty name or an unknown parent.
 * (ABI version 4) */
uint32_t protond_context_intern(uint32_t parent, const char* name);

/* The earliest of this process's open sessions (also while paused), 0 when none: the one
 * protonctl run started, while it is open. */
uint64_t protond_current_session(void);

/* A message about the calling thread's last error, "" if none. Valid until the next call. */
const char* protond_last_error(void);

/* Not for programs: protond calls this after it loaded the shim into a running process that had
 * nothing preloaded (protonctl start --pid, docs/attach.md), on a thread it stopped. The shim then
 * registers with the protond at `socket_path` from its own thread at once, rather than after
 * PROTOND_CONTROL_DELAY_MS and at the default socket. PROTOND_ERR_UNAVAILABLE when the shim is
 * off in this process or already talks to another socket; protond_last_error says which.
 * (ABI version 8) */
protond_result protond_shim_attach(const char* socket_path);

/* protond_session_start with Proton's `data`: "tree" keeps the call tree (as
 * protond_session_start), "trace" keeps the tree and every event (each scope instance with its
 * thread, each GPU activity with its stream), for protond_session_export(id, "chrome_trace", ...).
 * PROTOND_ERR_INVALID_ARGUMENT for another value. (ABI version 4) */
protond_result protond_session_start_with_data(const char* name, const char* data,
                                               uint64_t* session_id);

/* protond_session_start_with_data with Proton's `mode` as well: NULL or "" for none, or
 * "pcsampling" (also CUPTI PC samples with their stall reasons, docs/pc-sampling.md), optionally
 * with an interval in cycles, "pcsampling:interval=4096" ("pc_sampling:..." as Proton's
 * mode.PCSampling prints itself). The daemon stores the mode as "pcsampling:interval=4096" writes
 * it back (the interval rounded to a power of two). Sessions of one process that ask for PC
 * sampling share one interval: the first one's. PROTOND_ERR_INVALID_ARGUMENT, with
 * protond_last_error naming what is wrong, for a mode that does not parse; nothing is started
 * then. (ABI version 6) */
protond_result protond_session_start_with_mode(const char* name, const char* data, const char* mode,
                                               uint64_t* session_id);

/* The intra-kernel profile buffer of one launch of an instrumented kernel, copied out of the GPU
 * by the program after the launch (docs/instrumentation.md), in `layout`:
 * PROTOND_BUFFER_CIRCULAR: `buffer_bytes` of `buffer` are a whole number of CTA blocks of
 *   `block_bytes` in Proton's circular layout, as a kernel built with mlir-instrument writes it,
 *   with `num_warps` warps per CTA;
 * PROTOND_BUFFER_TRITON_HOST: Triton 3.6's host buffer (Proton's
 *   InstrumentationHook.host_buffer), whose own header gives the block size and warps
 *   (`block_bytes` and `num_warps` are 0).
 * Scope id i is named `scope_names[i]` (at most 256 scopes). `profiled_warps` lists the warps
 * that record, ascending, when not all do (granularity warp-group or CTA, or sampled warps: each
 * has its part of a block's data); NULL and 0 for every warp, and for Triton's host buffer. The
 * buffer is copied, and the daemon decodes it into per-scope cycles under the kernel's node
 * `kernel_name`, below the calling thread's innermost scope (the node the kernel's CUPTI records
 * land on). The buffer is taken to be that of the calling thread's latest kernel launch, which
 * places it in a trace session's timeline: hand it over before the thread launches another
 * kernel. PROTOND_ERR_INVALID_ARGUMENT, with protond_last_error naming what is wrong, for sizes
 * that do not add up or a bad name, whether or not a session records (else PROTOND_INACTIVE);
 * PROTOND_DROPPED when the thread's lane stayed full. (ABI version 7) */
#define PROTOND_BUFFER_CIRCULAR 1
#define PROTOND_BUFFER_TRITON_HOST 2
protond_result protond_instrumentation_buffer(const char* kernel_name, uint32_t device_id,
                                              uint32_t layout, const char* const* scope_names,
                                              uint32_t num_scopes, uint32_t block_bytes,
                                              uint32_t num_warps, const uint32_t* profiled_warps,
                                              uint32_t num_profiled_warps, const void* buffer,
                                              uint64_t buffer_bytes);

#ifdef __cplusplus
}
#endif

#endif /* PROTOND_SHIM_H_ */
