// Research helper for bench/research/triton_launch_cost.py: turns on parts of what protond's GPU
// tracer enables, one at a time, so their cost per Triton launch can be told apart. Not part of
// the build; compile with:
//   g++ -O2 -shared -fPIC bench/research/cupti_probe.cc -I/usr/local/cuda/include \
//       -L/usr/local/cuda/lib64 -lcupti -o libcupti_probe.so
#include <cupti.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace {

enum Part {
  kActivity = 1,          // CONCURRENT_KERNEL, MEMCPY, MEMCPY2, MEMSET records
  kDriverLaunchOnly = 2,  // a callback on cuLaunchKernelEx alone
  kDriverPrefixes = 4,    // callbacks on cuLaunch*, cuGraphLaunch*, cuMemcpy*, cuMemset*
  kRuntimePrefixes = 8,   // callbacks on cudaLaunch*, cudaGraphLaunch*, cudaMemcpy*, cudaMemset*
  kFlushPeriod = 16,      // cuptiActivityFlushPeriod(200)
};

thread_local uint32_t tl_context = 1;
std::atomic<uint64_t> g_slots[1 << 16];

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite == CUPTI_API_ENTER) {
    g_slots[call->correlationId & 0xffff].store(uint64_t{call->correlationId} << 32 | tl_context,
                                                std::memory_order_release);
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
                    const char* const* prefixes, int prefix_count) {
  for (uint32_t id = 1; id < count; ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    for (int i = 0; i < prefix_count; ++i) {
      if (std::strncmp(name, prefixes[i], std::strlen(prefixes[i])) == 0) {
        cuptiEnableCallback(1, subscriber, domain, id);
      }
    }
  }
}

}  // namespace

extern "C" int probe_start(int parts) {
  if (parts & kActivity) {
    if (cuptiActivityRegisterCallbacks(OnRequest, OnComplete) != CUPTI_SUCCESS) return 1;
    for (CUpti_ActivityKind kind :
         {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
          CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET}) {
      if (cuptiActivityEnable(kind) != CUPTI_SUCCESS) return 2;
    }
  }
  if (parts & kFlushPeriod) cuptiActivityFlushPeriod(200);
  if (parts & (kDriverLaunchOnly | kDriverPrefixes | kRuntimePrefixes)) {
    CUpti_SubscriberHandle subscriber;
    if (cuptiSubscribe(&subscriber, OnCallback, nullptr) != CUPTI_SUCCESS) return 3;
    if (parts & kDriverLaunchOnly) {
      cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
    }
    static const char* const kDriver[] = {"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset"};
    static const char* const kRuntime[] = {"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy",
                                           "cudaMemset"};
    if (parts & kDriverPrefixes) {
      EnableByPrefix(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, kDriver,
                     4);
    }
    if (parts & kRuntimePrefixes) {
      EnableByPrefix(subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE,
                     kRuntime, 4);
    }
  }
  return 0;
}
