// libprotond_shim.so, the library programs preload: the C ABI of protond/shim.h, forwarded to
// libprotond_shim_core.so (core_api.h), which it loads from beside itself only when something
// needs it. Every process of a node may carry this file (LD_PRELOAD, CUDA_INJECTION64_PATH), and
// most never record: loading the core's libraries (Abseil alone is 27 of them) would cost each of
// them several milliseconds at start. So this file uses the C library only (no C++ library is
// linked: no exceptions, no operator new, no static guards), and at load it only sets the
// injection variables and starts one thread that loads the core once the process has lived
// PROTOND_CONTROL_DELAY_MS, when the core would reach protond anyway.
//
// The core is loaded at once, on the calling thread, by the first call of the ABI, by CUDA's and
// NVTX's injection entry points, and at load when protonctl run named a session
// (PROTOND_SESSION): from then on each call costs one more indirect call. Nothing here may harm
// the program: a core that cannot be loaded turns profiling off with one line on stderr.
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <time.h>

#include <atomic>

#include "shim/front/core_api.h"
#include "shim/loading/env_number.h"
#ifdef PROTOND_HAS_NVTX
#include "shim/nvtx/nvtx_enabled.h"
#endif

namespace protond::shim {
namespace {

constexpr char kCoreFileName[] = "libprotond_shim_core.so";
constexpr uint64_t kDefaultControlDelayMs = 200;

// The front's own path, resolved at load (a relative LD_PRELOAD entry is relative to the
// working directory of that moment).
char g_front_path[PATH_MAX];

// The core once started; never unloaded.
std::atomic<const ProtondShimCore*> g_core{nullptr};
// Set instead when there will be no core in this process; g_no_core_reason says why.
std::atomic<bool> g_no_core{false};
char g_no_core_reason[2 * PATH_MAX];
// Serializes loading the core; held while the core starts.
pthread_mutex_t g_load_mutex = PTHREAD_MUTEX_INITIALIZER;
// The core while its start runs on this thread: a call that the start itself causes (CUDA's
// injection, when the start initializes CUDA) reaches the core without waiting on the lock.
thread_local const ProtondShimCore* t_core_starting = nullptr;

timespec g_loaded_at;
uint64_t g_control_delay_ms = kDefaultControlDelayMs;

// Under g_load_mutex, or before any other thread can look (the constructor, a forked child).
void GiveUpCore(const char* what, const char* detail) {
  snprintf(g_no_core_reason, sizeof(g_no_core_reason), "%s%s", what, detail);
  g_no_core.store(true, std::memory_order_release);
}

uint64_t MillisecondsSinceLoad() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t ms =
      (now.tv_sec - g_loaded_at.tv_sec) * 1000 + (now.tv_nsec - g_loaded_at.tv_nsec) / 1000000;
  return ms > 0 ? static_cast<uint64_t>(ms) : 0;
}

// Under g_load_mutex: loads and starts the core, or says why not (once, on stderr).
const ProtondShimCore* StartCore() {
  char core_path[PATH_MAX];
  const char* slash = strrchr(g_front_path, '/');
  const int directory_bytes = slash != nullptr ? static_cast<int>(slash - g_front_path + 1) : 0;
  snprintf(core_path, sizeof(core_path), "%.*s%s", directory_bytes, g_front_path, kCoreFileName);
  // RTLD_LOCAL: the core's libraries (Abseil, the C++ library) stay private to it.
  void* library = dlopen(core_path, RTLD_NOW | RTLD_LOCAL);
  auto table = library != nullptr ? reinterpret_cast<protond_shim_core_table_function>(
                                        dlsym(library, PROTOND_SHIM_CORE_TABLE_SYMBOL))
                                  : nullptr;
  auto start = library != nullptr ? reinterpret_cast<protond_shim_core_start_function>(
                                        dlsym(library, PROTOND_SHIM_CORE_START_SYMBOL))
                                  : nullptr;
  const ProtondShimCore* core = nullptr;
  char reason[PATH_MAX + 512] = "";
  if (table == nullptr || start == nullptr) {
    const char* error = dlerror();
    snprintf(reason, sizeof(reason), "cannot load %s: %s", core_path,
             error != nullptr ? error : "it lacks the core's entry points");
  } else if (table()->abi_version != PROTOND_SHIM_ABI_VERSION) {
    snprintf(reason, sizeof(reason), "%s is of shim ABI %d, this shim of ABI %d", core_path,
             table()->abi_version, PROTOND_SHIM_ABI_VERSION);
  } else {
    const uint64_t since_load = MillisecondsSinceLoad();
    const ProtondShimCoreStart start_options{static_cast<uint32_t>(
        since_load < g_control_delay_ms ? g_control_delay_ms - since_load : 0)};
    t_core_starting = table();
    core = start(&start_options, reason, sizeof(reason));
    t_core_starting = nullptr;
  }
  if (core == nullptr) {
    fprintf(stderr, "protond: profiling is off: %s\n", reason);
    GiveUpCore("profiling is off in this process: ", reason);
  }
  return core;
}

const ProtondShimCore* LoadCore() {
  if (t_core_starting != nullptr) return t_core_starting;
  if (g_no_core.load(std::memory_order_acquire)) return nullptr;
  pthread_mutex_lock(&g_load_mutex);
  const ProtondShimCore* core = g_core.load(std::memory_order_acquire);
  if (core == nullptr && !g_no_core.load(std::memory_order_acquire)) {
    core = StartCore();
    if (core != nullptr) g_core.store(core, std::memory_order_release);
  }
  pthread_mutex_unlock(&g_load_mutex);
  return core;
}

// The core, loaded now if it is not yet; NULL when this process has none.
inline const ProtondShimCore* Core() {
  const ProtondShimCore* core = g_core.load(std::memory_order_acquire);
  return core != nullptr ? core : LoadCore();
}

void* LoadCoreAfterDelay(void*) {
  const uint64_t delay_ms = g_control_delay_ms;
  const timespec delay{static_cast<time_t>(delay_ms / 1000),
                       static_cast<long>(delay_ms % 1000) * 1000000};
  nanosleep(&delay, nullptr);
  LoadCore();
  return nullptr;
}

// Only the thread that forked survives in the child; a core loading in the parent at that moment
// may have left the lock held. A child whose parent had a core keeps it (the core turns its own
// recording off in a forked child); any other child records nothing, as before the split.
void NoCoreInForkedChild() {
  if (g_core.load(std::memory_order_acquire) == nullptr) {
    GiveUpCore("the protond shim is off in a forked child", "");
  }
}

bool ResolveOwnPath() {
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&ResolveOwnPath), &info, reinterpret_cast<void**>(&map),
              RTLD_DL_LINKMAP) == 0 ||
      map == nullptr || map->l_name[0] == '\0') {
    return false;
  }
  if (map->l_name[0] == '/') {
    snprintf(g_front_path, sizeof(g_front_path), "%s", map->l_name);
    return true;
  }
  return realpath(map->l_name, g_front_path) != nullptr;
}

// CUDA loads its injection library at initialization and calls InitializeInjection: that is how
// the shim learns that the process uses CUDA. NVTX likewise loads its injection at the first NVTX
// call, and NCCL its profiler plugin. Another tool's injection or plugin is kept. setenv races with
// getenv on other threads, so only a front loaded at start-up (preloaded or linked: no thread yet)
// sets them.
void SetInjectionVariables() {
  if (!__libc_single_threaded) return;
  setenv("CUDA_INJECTION64_PATH", g_front_path, /*overwrite=*/0);
  // NCCL loads its profiler plugin (ncclProfiler_v5, below) at each communicator's creation.
  setenv("NCCL_PROFILER_PLUGIN", g_front_path, /*overwrite=*/0);
#ifdef PROTOND_HAS_NVTX
  if (NvtxRangesEnabled()) setenv("NVTX_INJECTION64_PATH", g_front_path, /*overwrite=*/0);
#endif
}

// The thread that loads the core later blocks the program's signals, and so do the core's
// threads it starts: the program's SIGINT and SIGTERM never land on them.
void StartDelayedLoad() {
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  const int error = pthread_create(&thread, &attributes, LoadCoreAfterDelay, nullptr);
  pthread_attr_destroy(&attributes);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (error != 0) LoadCore();  // no thread: load now rather than never
}

[[gnu::constructor]] void LoadFront() {
  clock_gettime(CLOCK_MONOTONIC, &g_loaded_at);
  if (EnvNumber("PROTOND_DISABLE", 0) != 0) {
    GiveUpCore("the protond shim is disabled in this process (PROTOND_DISABLE)", "");
    return;
  }
  if (!ResolveOwnPath()) {
    fprintf(stderr, "protond: profiling is off: the shim cannot find its own file\n");
    GiveUpCore("profiling is off in this process: the shim cannot find its own file", "");
    return;
  }
  g_control_delay_ms = EnvNumber("PROTOND_CONTROL_DELAY_MS", kDefaultControlDelayMs);
  SetInjectionVariables();
  pthread_atfork(nullptr, nullptr, NoCoreInForkedChild);
  const char* session = getenv("PROTOND_SESSION");
  if (session != nullptr && *session != '\0' && strcmp(session, "0") != 0) {
    LoadCore();  // protonctl run: the session records from the program's first instruction
  } else {
    StartDelayedLoad();
  }
}

}  // namespace
}  // namespace protond::shim

using protond::shim::Core;

#define PROTOND_FRONT_EXPORT extern "C" __attribute__((visibility("default")))

#define PROTOND_FORWARD_CALL(type, name, parameters, arguments, without_core) \
  PROTOND_FRONT_EXPORT type name parameters {                                 \
    const ProtondShimCore* core = Core();                                     \
    return core != nullptr ? core->name arguments : (without_core);           \
  }
PROTOND_SHIM_CALLS(PROTOND_FORWARD_CALL)
#undef PROTOND_FORWARD_CALL

PROTOND_FRONT_EXPORT int protond_abi_version(void) { return PROTOND_SHIM_ABI_VERSION; }

// Never loads the core: only a call of the core can have failed. Without a core, the reason there
// is none (or "" while it is not loaded yet).
PROTOND_FRONT_EXPORT const char* protond_last_error(void) {
  const ProtondShimCore* core = protond::shim::g_core.load(std::memory_order_acquire);
  if (core != nullptr) return core->protond_last_error();
  return protond::shim::g_no_core.load(std::memory_order_acquire) ? protond::shim::g_no_core_reason
                                                                  : "";
}

// The CUDA driver's entry point for CUDA_INJECTION64_PATH, called once from cuInit.
PROTOND_FRONT_EXPORT int InitializeInjection(void) {
  const ProtondShimCore* core = Core();
  return core != nullptr ? core->initialize_cuda_injection() : 1;
}

// NVTX's entry point for NVTX_INJECTION64_PATH. Returning 0 would make that NVTX unload us.
PROTOND_FRONT_EXPORT int InitializeInjectionNvtx2(protond_nvtx_get_export_table get_export_table) {
  const ProtondShimCore* core = Core();
  return core != nullptr ? core->initialize_nvtx_injection(get_export_table) : 1;
}

// NCCL's profiler plugin (shim/nccl/collective_plugin.h), forwarded to the core. A communicator
// whose init found no core gets no context and asks for no events; the others' calls come with
// the core's context, so the core is loaded.
namespace {

protond_nccl_result NcclInit(void** context, uint64_t comm_hash, int* activation_mask,
                             const char* comm_name, int nodes, int nranks, int rank,
                             protond_nccl_logger logger) {
  const ProtondShimCore* core = Core();
  if (core == nullptr) {
    *context = nullptr;
    *activation_mask = 0;
    return PROTOND_NCCL_SUCCESS;
  }
  return core->nccl_profiler_v5->init(context, comm_hash, activation_mask, comm_name, nodes, nranks,
                                      rank, logger);
}

inline const protond_nccl_profiler_v5* LoadedPlugin() {
  return protond::shim::g_core.load(std::memory_order_acquire)->nccl_profiler_v5;
}

protond_nccl_result NcclStartEvent(void* context, void** event, protond_nccl_event_v5* descr) {
  if (context == nullptr) {
    *event = nullptr;
    return PROTOND_NCCL_SUCCESS;
  }
  return LoadedPlugin()->start_event(context, event, descr);
}

protond_nccl_result NcclStopEvent(void* event) {
  return event != nullptr ? LoadedPlugin()->stop_event(event) : PROTOND_NCCL_SUCCESS;
}

protond_nccl_result NcclRecordEventState(void* event, int state, void* state_args) {
  return event != nullptr ? LoadedPlugin()->record_event_state(event, state, state_args)
                          : PROTOND_NCCL_SUCCESS;
}

protond_nccl_result NcclFinalize(void* context) {
  return context != nullptr ? LoadedPlugin()->finalize(context) : PROTOND_NCCL_SUCCESS;
}

}  // namespace

PROTOND_FRONT_EXPORT const protond_nccl_profiler_v5 ncclProfiler_v5 = {
    "protond", &NcclInit, &NcclStartEvent, &NcclStopEvent, &NcclRecordEventState, &NcclFinalize,
};
