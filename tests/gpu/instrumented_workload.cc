// Launches a kernel built by mlir-instrument (scripts/compile-kernel.sh: kernel.cubin and
// metadata.json in KERNEL_DIR) on the GPU and hands each launch's profile buffer to protond with
// protond_instrumentation_buffer, under the scope "instrumented". The kernel takes x, y, out
// (f32 arrays of n elements), n (i64) and, when instrumented, the profile buffer last, as the
// examples in mlir-instrument/examples and tests/gpu do.
//
//   instrumented_workload KERNEL_DIR [LAUNCHES [BLOCKS]]
//
// It prints the median kernel time (CUDA events around each launch); with --time it hands no
// buffer over, for bench/instrumentation_overhead.sh. A kernel compiled without its proton
// records (tests/gpu/compile_kernels.sh: metadata with no "kernels") takes no buffer. Exits 2,
// saying so, where no CUDA device is usable.
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "protond/shim.h"

namespace {

constexpr int64_t kElements = 1 << 20;  // the examples' array length
constexpr unsigned kThreadsPerWarp = 32;

void Check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  std::fprintf(stderr, "instrumented_workload: %s: %s (%s)\n", what, name ? name : "unknown error",
               text ? text : "no description");
  std::exit(result == CUDA_ERROR_NO_DEVICE || result == CUDA_ERROR_NOT_INITIALIZED ? 2 : 1);
}

struct Kernel {
  std::string name;
  bool instrumented = false;  // takes a profile buffer
  unsigned num_warps = 4;
  uint32_t block_bytes = 0;
  std::vector<uint32_t> profiled_warps;  // granularity warp-group or CTA: not every warp
  std::vector<std::string> scope_names;
};

Kernel ReadMetadata(const std::string& dir) {
  std::ifstream in(dir + "/metadata.json");
  if (!in) {
    std::fprintf(stderr, "instrumented_workload: no %s/metadata.json\n", dir.c_str());
    std::exit(1);
  }
  const nlohmann::json metadata = nlohmann::json::parse(in);
  Kernel kernel;
  kernel.name = metadata.at("kernel_name").get<std::string>();
  kernel.num_warps = metadata.at("num_warps").get<unsigned>();
  kernel.instrumented = metadata.contains("kernels") && !metadata.at("kernels").empty();
  if (kernel.instrumented) {
    kernel.block_bytes = metadata.at("block_bytes").get<uint32_t>();
    kernel.scope_names = metadata.at("scope_names").get<std::vector<std::string>>();
    kernel.profiled_warps = metadata.at("profiled_warps").get<std::vector<uint32_t>>();
  }
  return kernel;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const bool time_only = std::erase(args, "--time") > 0;
  if (args.empty()) {
    std::fprintf(stderr, "usage: instrumented_workload [--time] KERNEL_DIR [LAUNCHES [BLOCKS]]\n");
    return 1;
  }
  const Kernel kernel = ReadMetadata(args[0]);
  const int launches = args.size() > 1 ? std::atoi(args[1].c_str()) : 3;
  const unsigned blocks = args.size() > 2 ? std::atoi(args[2].c_str()) : 264;

  Check(cuInit(0), "cuInit");
  CUdevice device;
  Check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  Check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  Check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUmodule module;
  Check(cuModuleLoad(&module, (args[0] + "/kernel.cubin").c_str()), "cuModuleLoad");
  CUfunction function;
  Check(cuModuleGetFunction(&function, module, kernel.name.c_str()), "cuModuleGetFunction");

  CUdeviceptr x, y, out, buffer = 0;
  const size_t array_bytes = kElements * sizeof(float);
  for (CUdeviceptr* array : {&x, &y, &out}) {
    Check(cuMemAlloc(array, array_bytes), "cuMemAlloc");
    Check(cuMemsetD32(*array, 0x3f800000, kElements), "cuMemsetD32");  // 1.0f
  }
  const size_t buffer_bytes = size_t{blocks} * kernel.block_bytes;
  if (kernel.instrumented) Check(cuMemAlloc(&buffer, buffer_bytes), "cuMemAlloc");
  int64_t n = kElements;
  void* params[] = {&x, &y, &out, &n, &buffer};
  std::vector<uint8_t> host(buffer_bytes);
  std::vector<const char*> names;
  for (const std::string& name : kernel.scope_names) names.push_back(name.c_str());

  CUevent start, end;
  Check(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  Check(cuEventCreate(&end, CU_EVENT_DEFAULT), "cuEventCreate");
  std::vector<float> times_ms;
  protond_scope_enter("instrumented");
  for (int i = 0; i < launches; ++i) {
    // A block whose CTA never ran must read as unprofiled (preamble 0).
    if (kernel.instrumented) Check(cuMemsetD8(buffer, 0, buffer_bytes), "cuMemsetD8");
    Check(cuEventRecord(start, nullptr), "cuEventRecord");
    Check(cuLaunchKernel(function, blocks, 1, 1, kernel.num_warps * kThreadsPerWarp, 1, 1, 0,
                         nullptr, params, nullptr),
          "cuLaunchKernel");
    Check(cuEventRecord(end, nullptr), "cuEventRecord");
    Check(cuEventSynchronize(end), "cuEventSynchronize");
    float ms = 0;
    Check(cuEventElapsedTime(&ms, start, end), "cuEventElapsedTime");
    times_ms.push_back(ms);
    if (time_only || !kernel.instrumented) continue;
    Check(cuMemcpyDtoH(host.data(), buffer, buffer_bytes), "cuMemcpyDtoH");
    const protond_result result = protond_instrumentation_buffer(
        kernel.name.c_str(), 0, PROTOND_BUFFER_CIRCULAR, names.data(),
        static_cast<uint32_t>(names.size()), kernel.block_bytes, kernel.num_warps,
        kernel.profiled_warps.data(), static_cast<uint32_t>(kernel.profiled_warps.size()),
        host.data(), host.size());
    if (result != PROTOND_OK && result != PROTOND_INACTIVE) {
      std::fprintf(stderr, "instrumented_workload: protond_instrumentation_buffer: %d %s\n", result,
                   protond_last_error());
      return 1;
    }
  }
  protond_scope_exit("instrumented");
  std::sort(times_ms.begin(), times_ms.end());
  std::printf("instrumented_workload: %d launches of %s (%u blocks of %u warps), median %.1f us\n",
              launches, kernel.name.c_str(), blocks, kernel.num_warps,
              times_ms[times_ms.size() / 2] * 1000);
  return 0;
}
