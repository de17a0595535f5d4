// The GPU demo workload: kernels inside nested scopes, copies and a set, two threads on their own
// streams, and a CUDA graph captured inside one scope and replayed under another. Its kernels,
// copies and counts are exact and known, so the GPU tests check them (N = 2^20 floats, 4 MiB):
//   setup  > [CUDA memcpy Host-to-Device]  count 2, bytes 8 MiB;  > [CUDA memset]  count 1, 4 MiB
//   train  > step > forward > scale        count 2*STEPS;  > backward > add  count STEPS
//   worker > fill                          count 2 threads * 4 (each thread on its own stream)
//   capture > build                        (stream capture: nothing runs)
//   replay > <captured_at> > capture > build > scale, add   count REPLAYS each
//   teardown > [CUDA memcpy Device-to-Host]  count 1, bytes 4 MiB
// It prints a checksum that does not depend on profiling. Exit code 2 and a message when no CUDA
// device is usable. --hold-cupti subscribes to CUPTI first, as another profiler would.
#include <cuda_runtime.h>
#include <cupti.h>

#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "protond/shim.h"

namespace {

constexpr int kSteps = 5;
constexpr int kReplays = 3;
constexpr int kFillsPerWorker = 4;
constexpr int kN = 1 << 20;
constexpr int kBlock = 256;
constexpr int kGrid = kN / kBlock;

bool Check(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return true;
  std::fprintf(stderr, "sample_gpu_workload: %s: %s\n", what, cudaGetErrorString(result));
  return false;
}

#define CHECK(call)                          \
  do {                                       \
    if (!Check((call), #call)) return false; \
  } while (0)

}  // namespace

extern "C" __global__ void scale(float* x, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

extern "C" __global__ void add(float* x, const float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += y[i];
}

extern "C" __global__ void fill(float* x, float value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

namespace {

struct Buffers {
  float* x = nullptr;
  float* y = nullptr;
  float* z = nullptr;
  float* host = nullptr;  // pinned: each copy is one transfer
};

class Scope {
 public:
  explicit Scope(const char* name) : name_(name) { protond_scope_enter(name); }
  ~Scope() { protond_scope_exit(name_); }

 private:
  const char* name_;
};

bool Setup(Buffers& b) {
  Scope scope("setup");
  CHECK(cudaMalloc(&b.x, kN * sizeof(float)));
  CHECK(cudaMalloc(&b.y, kN * sizeof(float)));
  CHECK(cudaMalloc(&b.z, kN * sizeof(float)));
  CHECK(cudaMallocHost(&b.host, kN * sizeof(float)));
  for (int i = 0; i < kN; ++i) b.host[i] = static_cast<float>(i % 7);
  CHECK(cudaMemcpy(b.x, b.host, kN * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b.y, b.host, kN * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(b.z, 0, kN * sizeof(float)));
  return true;
}

bool Train(Buffers& b) {
  Scope train("train");
  for (int step = 0; step < kSteps; ++step) {
    Scope step_scope("step");
    {
      Scope forward("forward");
      scale<<<kGrid, kBlock>>>(b.x, 0.5f, kN);
      scale<<<kGrid, kBlock>>>(b.x, 2.0f, kN);
    }
    Scope backward("backward");
    add<<<kGrid, kBlock>>>(b.x, b.y, kN);
  }
  CHECK(cudaGetLastError());
  return true;
}

// Each thread fills its own buffer on its own stream.
bool Worker(float* buffer) {
  Scope worker("worker");
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 0; i < kFillsPerWorker; ++i) fill<<<kGrid, kBlock, 0, stream>>>(buffer, i, kN);
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));
  return true;
}

bool Workers(Buffers& b) {
  bool ok[2] = {false, false};
  std::thread first([&] { ok[0] = Worker(b.z); });
  std::thread second([&] { ok[1] = Worker(b.y); });
  first.join();
  second.join();
  return ok[0] && ok[1];
}

bool Graph(Buffers& b) {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraphExec_t exec;
  {
    Scope capture("capture");
    Scope build("build");
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale<<<kGrid, kBlock, 0, stream>>>(b.x, 1.0f, kN);
    add<<<kGrid, kBlock, 0, stream>>>(b.x, b.z, kN);
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
  }
  {
    Scope replay("replay");
    for (int i = 0; i < kReplays; ++i) CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaStreamDestroy(stream));
  return true;
}

bool Teardown(Buffers& b, double* checksum) {
  Scope teardown("teardown");
  CHECK(cudaMemcpy(b.host, b.x, kN * sizeof(float), cudaMemcpyDeviceToHost));
  *checksum = 0;
  for (int i = 0; i < kN; ++i) *checksum += b.host[i];
  CHECK(cudaFree(b.x));
  CHECK(cudaFree(b.y));
  CHECK(cudaFree(b.z));
  CHECK(cudaFreeHost(b.host));
  return true;
}

// Takes the process's one CUPTI subscription, as torch.profiler or Nsight Systems would.
bool HoldCupti() {
  CUpti_SubscriberHandle subscriber;
  CUpti_SubscriberParams params = {};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "sample-holder";
  const CUptiResult result = cuptiSubscribe_v2(
      &subscriber, [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}, nullptr,
      &params);
  if (result != CUPTI_SUCCESS) {
    std::fprintf(stderr, "sample_gpu_workload: cuptiSubscribe_v2 failed: %d\n", result);
  }
  return result == CUPTI_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--hold-cupti") == 0 && !HoldCupti()) return 1;
  int devices = 0;
  const cudaError_t counted = cudaGetDeviceCount(&devices);
  if (counted != cudaSuccess || devices == 0) {
    // The error's name, for the GPU tests' skip (or failure) message: a broken driver reads
    // differently from a machine without a GPU.
    std::fprintf(
        stderr, "sample_gpu_workload: no CUDA device is usable here: cudaGetDeviceCount: %s (%s)\n",
        cudaGetErrorName(counted),
        counted != cudaSuccess ? cudaGetErrorString(counted) : "0 devices");
    return 2;
  }
  Buffers buffers;
  double checksum = 0;
  const bool ok = Setup(buffers) && Train(buffers) && Workers(buffers) && Graph(buffers) &&
                  Teardown(buffers, &checksum);
  if (!ok) return 1;
  std::printf("checksum %.1f\n", checksum);
  return 0;
}
