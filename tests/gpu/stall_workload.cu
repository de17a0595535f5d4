// The PC sampling tests' workload (compiled with line information): a memory-bound kernel, which
// chases pointers through a random cycle far larger than the caches so that every load waits on
// memory, and an arithmetic one, each in its own scope and on its own stream, so that they run
// concurrently. It prints the lines of the two loops' bodies, which the tests expect the samples
// on, and when its kernels start:
//   stall_workload: chase line N, spin line M
//   stall_workload: launching
// Usage: stall_workload [SECONDS] (default 2). Exit code 2 and a message when no CUDA device is
// usable.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "protond/shim.h"

namespace {

constexpr unsigned kCycleLength = 1u << 26;  // 256 MiB of indices
constexpr unsigned kChaseSteps = 4096;
constexpr unsigned kSpinSteps = 1u << 16;
constexpr int kBlocks = 132;
constexpr int kThreads = 128;

bool Check(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return true;
  std::fprintf(stderr, "stall_workload: %s: %s\n", what, cudaGetErrorString(result));
  return false;
}

}  // namespace

constexpr int kChaseLine = __LINE__ + 5;
extern "C" __global__ void chase(const unsigned* next, unsigned steps, unsigned* out) {
  unsigned at = (blockIdx.x * blockDim.x + threadIdx.x) * 7919u % kCycleLength;
  for (unsigned i = 0; i < steps; ++i) {
    // The load and its use are one line: its stalls land here.
    at = next[at];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = at;
}

constexpr int kSpinLine = __LINE__ + 4;
extern "C" __global__ void spin(float* data, unsigned steps) {
  float x = data[blockIdx.x * blockDim.x + threadIdx.x];
  for (unsigned i = 0; i < steps; ++i) {
    x = x * 1.000001f + 0.5f;
  }
  data[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  int devices = 0;
  const cudaError_t counted = cudaGetDeviceCount(&devices);
  if (counted != cudaSuccess || devices == 0) {
    // The error's name, for the GPU tests' skip (or failure) message: a broken driver reads
    // differently from a machine without a GPU.
    std::fprintf(stderr, "stall_workload: no CUDA device is usable: cudaGetDeviceCount: %s (%s)\n",
                 cudaGetErrorName(counted),
                 counted != cudaSuccess ? cudaGetErrorString(counted) : "0 devices");
    return 2;
  }
  std::printf("stall_workload: chase line %d, spin line %d\n", kChaseLine, kSpinLine);
  std::fflush(stdout);
  // One random cycle through every index: the chase never settles into a cached loop.
  std::vector<unsigned> order(kCycleLength);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  std::vector<unsigned> next(kCycleLength);
  for (unsigned i = 0; i < kCycleLength; ++i) next[order[i]] = order[(i + 1) % kCycleLength];

  unsigned *d_next = nullptr, *d_out = nullptr;
  float* d_data = nullptr;
  cudaStream_t memory_stream, math_stream;
  if (!Check(cudaMalloc(&d_next, kCycleLength * sizeof(unsigned)), "cudaMalloc") ||
      !Check(cudaMalloc(&d_out, kBlocks * kThreads * sizeof(unsigned)), "cudaMalloc") ||
      !Check(cudaMalloc(&d_data, kBlocks * kThreads * sizeof(float)), "cudaMalloc") ||
      !Check(cudaMemcpy(d_next, next.data(), kCycleLength * sizeof(unsigned),
                        cudaMemcpyHostToDevice),
             "cudaMemcpy") ||
      !Check(cudaMemset(d_data, 0, kBlocks * kThreads * sizeof(float)), "cudaMemset") ||
      !Check(cudaStreamCreate(&memory_stream), "cudaStreamCreate") ||
      !Check(cudaStreamCreate(&math_stream), "cudaStreamCreate")) {
    return 1;
  }
  // For a profiler attaching to a running program (protonctl start --pid): kernels run from now.
  std::printf("stall_workload: launching\n");
  std::fflush(stdout);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int launches = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    protond_scope_enter("memory");
    chase<<<kBlocks, kThreads, 0, memory_stream>>>(d_next, kChaseSteps, d_out);
    protond_scope_exit("memory");
    protond_scope_enter("math");
    spin<<<kBlocks, kThreads, 0, math_stream>>>(d_data, kSpinSteps);
    protond_scope_exit("math");
    ++launches;
    if (!Check(cudaDeviceSynchronize(), "kernel")) return 1;
  }
  std::printf("stall_workload: %d launches of each kernel\n", launches);
  return 0;
}
