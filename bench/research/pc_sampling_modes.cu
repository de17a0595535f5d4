// Research for PC sampling (issue 10), not part of the build: when does CUPTI's continuous PC
// sampling deliver samples? Each scenario runs in a fresh process (pc_sampling_modes SCENARIO):
// a pointer-chasing kernel is launched once (context and module exist), then sampling is enabled
// in one of several ways, 20 more launches follow, and GetData is called (during and after).
//   late:           enable without start/stop control, from the launching thread, after the
//                   first launch
//   late_start:     enable with start/stop control + Start, launching thread; Stop before GetData
//   other_start:    as late_start, but enable and Start from another thread
//   late_other:     as late, but enable from another thread (the attach case)
//   early:          enable before the first launch (no start/stop control)
// Prints the samples GetData returned during the launches and after them. On the GPU machine:
//   nvcc -O2 -arch=sm_90 -lineinfo pc_sampling_modes.cu -o pc_sampling_modes -lcupti -lcuda \
//     -L/usr/local/cuda/lib64 -Xlinker -rpath -Xlinker /usr/local/cuda/lib64
//   for s in early late late_start other_start late_other; do ./pc_sampling_modes $s; done
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_pcsampling.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

__global__ void chase(const unsigned* next, unsigned steps, unsigned* out) {
  unsigned at = (blockIdx.x * blockDim.x + threadIdx.x) * 7919u % (1u << 24);
  for (unsigned i = 0; i < steps; ++i) at = next[at];
  out[blockIdx.x * blockDim.x + threadIdx.x] = at;
}

struct Buffer {
  CUpti_PCSamplingData data = {};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<CUpti_PCSamplingStallReason> reasons;
  Buffer(size_t n, size_t r) : pcs(n), reasons(n * r) {
    data.size = sizeof(data);
    data.collectNumPcs = n;
    data.pPcData = pcs.data();
    for (size_t i = 0; i < n; ++i) {
      pcs[i].size = sizeof(CUpti_PCSamplingPCData);
      pcs[i].stallReason = &reasons[i * r];
    }
  }
};

#define CHECK(call)                                                          \
  do {                                                                       \
    CUptiResult r_ = (call);                                                 \
    if (r_ != CUPTI_SUCCESS) std::printf("  %s -> %d\n", #call, (int)r_);    \
  } while (0)

size_t g_reasons = 0;
Buffer* g_config = nullptr;

void Enable(CUcontext ctx, bool start_stop) {
  CUpti_PCSamplingEnableParams e = {CUpti_PCSamplingEnableParamsSize, nullptr, ctx};
  CHECK(cuptiPCSamplingEnable(&e));
  CUpti_PCSamplingGetNumStallReasonsParams n = {CUpti_PCSamplingGetNumStallReasonsParamsSize,
                                                nullptr, ctx, &g_reasons};
  CHECK(cuptiPCSamplingGetNumStallReasons(&n));
  g_config = new Buffer(1024, g_reasons);
  CUpti_PCSamplingConfigurationInfo info[4] = {};
  info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  info[0].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  info[1].attributeData.samplingDataBufferData.samplingDataBuffer = &g_config->data;
  info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
  info[2].attributeData.enableStartStopControlData.enableStartStopControl = start_stop;
  info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  info[3].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  CUpti_PCSamplingConfigurationInfoParams p = {};
  p.size = CUpti_PCSamplingConfigurationInfoParamsSize;
  p.ctx = ctx;
  p.numAttributes = 4;
  p.pPCSamplingConfigurationInfo = info;
  CHECK(cuptiPCSamplingSetConfigurationAttribute(&p));
  if (start_stop) {
    CUpti_PCSamplingStartParams s = {CUpti_PCSamplingStartParamsSize, nullptr, ctx};
    CHECK(cuptiPCSamplingStart(&s));
  }
}

uint64_t Collect(CUcontext ctx) {
  Buffer b(4096, g_reasons);
  uint64_t samples = 0;
  for (int i = 0; i < 64; ++i) {
    CUpti_PCSamplingGetDataParams g = {CUpti_PCSamplingGetDataParamsSize, nullptr, ctx, &b.data};
    CHECK(cuptiPCSamplingGetData(&g));
    for (size_t p = 0; p < b.data.totalNumPcs; ++p)
      for (size_t r = 0; r < b.pcs[p].stallReasonCount; ++r) samples += b.pcs[p].stallReason[r].samples;
    if (b.data.remainingNumPcs == 0) break;
  }
  return samples;
}

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "late";
  const unsigned n = 1u << 24;
  std::vector<unsigned> next(n);
  for (unsigned i = 0; i < n; ++i) next[i] = (i * 2654435761u + 12345u) % n;
  unsigned *d_next, *d_out;
  cudaMalloc(&d_next, n * 4);
  cudaMalloc(&d_out, 132 * 128 * 4);
  cudaMemcpy(d_next, next.data(), n * 4, cudaMemcpyHostToDevice);
  CUcontext ctx;
  cuCtxGetCurrent(&ctx);
  const bool start_stop = scenario == "late_start" || scenario == "other_start";
  const bool other = scenario == "other_start" || scenario == "late_other";
  if (scenario == "early") Enable(ctx, false);
  chase<<<132, 128>>>(d_next, 256, d_out);
  cudaDeviceSynchronize();
  if (scenario != "early") {
    if (other) {
      std::thread([&] {
        cuCtxPushCurrent(ctx);
        Enable(ctx, start_stop);
        CUcontext popped;
        cuCtxPopCurrent(&popped);
      }).join();
    } else {
      Enable(ctx, start_stop);
    }
  }
  uint64_t during = 0;
  for (int i = 0; i < 20; ++i) {
    chase<<<132, 128>>>(d_next, 4096, d_out);
    cudaDeviceSynchronize();
    if (i % 5 == 4) during += Collect(ctx);
  }
  if (start_stop) {
    CUpti_PCSamplingStopParams s = {CUpti_PCSamplingStopParamsSize, nullptr, ctx};
    CHECK(cuptiPCSamplingStop(&s));
  }
  const uint64_t after = Collect(ctx);
  std::printf("%-12s samples during %llu, after %llu\n", scenario.c_str(),
              (unsigned long long)during, (unsigned long long)after);
  return 0;
}
