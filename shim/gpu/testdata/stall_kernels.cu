// The recorded fixture of source_lines_test.cc: stall_kernels.sm_90.cubin is this file compiled
// with line information (regenerate with the command in shim/gpu/testdata/README.md).
extern "C" __global__ void chase(const unsigned* next, unsigned steps, unsigned* out) {
  unsigned at = threadIdx.x;
  for (unsigned i = 0; i < steps; ++i) {
    at = next[at];  // the load and its use: long_scoreboard stalls land here
  }
  out[threadIdx.x] = at;
}

extern "C" __global__ void spin(float* data, unsigned steps) {
  float x = data[threadIdx.x];
  for (unsigned i = 0; i < steps; ++i) {
    x = x * 1.0001f + 0.5f;  // arithmetic only
  }
  data[threadIdx.x] = x;
}
