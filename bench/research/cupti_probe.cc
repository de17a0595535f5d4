// Research helper for bench/research/callback_cost.py: switches parts of what protond's GPU
// tracer enables on and off inside one process, so their cost per launch can be told apart. Not
// part of the build; compile with (one command):
//   g++ -O2 -shared -fPIC bench/research/cupti_probe.cc -I/usr/local/cuda/include
//       -L/usr/local/cuda/lib64 -lcupti -o libcupti_probe.so
#include <cupti.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace {

enum Part {
  kActivity = 1,         // CONCURRENT_KERNEL, MEMCPY, MEMCPY2, MEMSET records
  kDriverPrefixes = 4,   // callbacks on cuLaunch*, cuGraphLaunch*, cuMemcpy*, cuMemset*
  kRuntimePrefixes = 8,  // callbacks on cudaLaunch*, cudaGraphLaunch*, cudaMemcpy*, cudaMemset*
};

thread_local uint32_t tl_context = 1;
std::atomic<uint64_t> g_slots[1 << 16];
// API-enter callbacks seen, by domain (driver, runtime).
std::atomic<uint64_t> g_enters[CUPTI_CB_DOMAIN_SIZE];
CUpti_SubscriberHandle g_subscriber = nullptr;

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite == CUPTI_API_ENTER) {
    g_slots[call->correlationId & 0xffff].store(uint64_t{call->correlationId} << 32 | tl_context,
                                                std::memory_order_release);
    g_enters[domain].fetch_add(1, std::memory_order_relaxed);
  }
}

void CUPTIAPI OnRequest(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, 8 << 20));
  *size = 8 << 20;
  *max_records = 0;
}

void CUPTIAPI OnComplete(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) {
  std::free(buffer);
}

void EnableByPrefix(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain, uint32_t count,
                    const char* const* prefixes, int prefix_count, uint32_t enable) {
  for (uint32_t id = 1; id < count; ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    for (int i = 0; i < prefix_count; ++i) {
      if (std::strncmp(name, prefixes[i], std::strlen(prefixes[i])) == 0) {
        cuptiEnableCallback(enable, subscriber, domain, id);
      }
    }
  }
}

const char* const kDriver[] = {"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset"};
const char* const kRuntime[] = {"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset"};
const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                     CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
                                     CUPTI_ACTIVITY_KIND_MEMSET};

}  // namespace

// Subscribe once, then probe_switch(parts) sets activity and the callback families to exactly
// `parts`.
extern "C" int probe_subscribe() {
  if (cuptiActivityRegisterCallbacks(OnRequest, OnComplete) != CUPTI_SUCCESS) return 1;
  return cuptiSubscribe(&g_subscriber, OnCallback, nullptr) == CUPTI_SUCCESS ? 0 : 3;
}

extern "C" int probe_switch(int parts) {
  for (CUpti_ActivityKind kind : kKinds) {
    const CUptiResult result =
        (parts & kActivity) ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
    if (result != CUPTI_SUCCESS) return 2;
  }
  EnableByPrefix(g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, kDriver, 4,
                 (parts & kDriverPrefixes) ? 1 : 0);
  EnableByPrefix(g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, kRuntime,
                 4, (parts & kRuntimePrefixes) ? 1 : 0);
  cuptiActivityFlushAll(0);
  return 0;
}

// API-enter callbacks seen since the last call, of the driver (domain 1) or runtime (2) API.
extern "C" uint64_t probe_take_enters(int domain) { return g_enters[domain].exchange(0); }
