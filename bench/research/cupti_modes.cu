// Research for the CUPTI design (issue 4), not part of the build: the cost of CUPTI's modes on
// 20k tiny launches (none, CONCURRENT_KERNEL activity only, activity plus a runtime launch
// callback), interleaved over 7 rounds, and what cuptiSubscribe_v2 reports. On the GPU machine:
//   nvcc -O2 -arch=sm_90 cupti_modes.cu -o cupti_modes -lcupti -lcuda -L/usr/local/cuda/lib64 \
//     -Xlinker -rpath -Xlinker /usr/local/cuda/lib64 && ./cupti_modes
// Figures: docs/performance.md, "CUPTI modes".
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <atomic>

__global__ void tiny(float* x) { x[threadIdx.x] += 1.0f; }

static std::atomic<long> g_kernels{0}, g_callbacks{0};
static void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max) {
  *size = 8 << 20; *buffer = (uint8_t*)aligned_alloc(8, *size); *max = 0;
}
static void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* r = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS)
    if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) g_kernels++;
  free(buffer);
}
static void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  auto* cb = (const CUpti_CallbackData*)data;
  if (cb->callbackSite == CUPTI_API_ENTER) g_callbacks++;
}

static double RunLaunches(float* x, int n) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) tiny<<<1, 32>>>(x);
  cudaDeviceSynchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  float* x; cudaMalloc(&x, 4096); RunLaunches(x, 1000);
  const int n = 20000;
  // mode 0: none, 1: activity only, 2: activity + runtime launch callback
  std::vector<double> t[3];
  CUpti_SubscriberHandle sub{};
  CUpti_SubscriberParams params{}; params.structSize = sizeof(params);
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = {};
  params.subscriberName = "protond-probe"; params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof(holder);
  CUptiResult rc = cuptiSubscribe_v2(&sub, OnCallback, nullptr, &params);
  const char* err = nullptr; cuptiGetResultString(rc, &err);
  printf("subscribe_v2: %s, holder '%s'\n", err, holder);
  if (argc > 1) return 0;  // only the subscribe check
  cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted);
  for (int round = 0; round < 7; ++round) {
    for (int mode = 0; mode < 3; ++mode) {
      if (mode >= 1) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
      if (mode == 2) cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                                         CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
      t[mode].push_back(RunLaunches(x, n));
      if (mode >= 1) { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
                       cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); }
      if (mode == 2) cuptiEnableCallback(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                                         CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    }
  }
  const char* names[3] = {"none", "activity", "activity+launch callback"};
  for (int m = 0; m < 3; ++m) {
    auto v = t[m]; std::sort(v.begin(), v.end());
    printf("%-26s median %.2f ms (min %.2f max %.2f) for %d launches = %.2f us/launch\n", names[m],
           v[v.size()/2], v.front(), v.back(), n, 1000 * v[v.size()/2] / n);
  }
  printf("kernel records %ld (expected %d), launch callbacks %ld (expected %d)\n",
         g_kernels.load(), 14 * n, g_callbacks.load(), 7 * n);
  auto t0 = std::chrono::steady_clock::now();
  cuptiUnsubscribe(sub);
  printf("unsubscribe %.2f ms\n", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}
