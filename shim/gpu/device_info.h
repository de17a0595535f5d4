// Tells the daemon what the process's CUDA devices are (compute capability, SMs, clocks, memory bus
// width and size, name): one kDeviceInfo record per device, written when tracing starts, so that
// metrics can be derived later as Proton does from its device_info. The driver is reached through
// a table of its functions, so that a test can stand in for a GPU.
#ifndef PROTOND_SHIM_GPU_DEVICE_INFO_H_
#define PROTOND_SHIM_GPU_DEVICE_INFO_H_

#include <cuda.h>

#include <cstddef>

#include "common/record/record_format.h"
#include "shim/gpu/gpu_api.h"

namespace protond::shim::gpu {

// The driver calls WriteDeviceInfo makes; the tracer passes cuDeviceGetCount and its siblings.
struct CudaDeviceDriver {
  CUresult (*get_count)(int* count);
  CUresult (*get)(CUdevice* device, int ordinal);
  CUresult (*get_attribute)(int* value, CUdevice_attribute attribute, CUdevice device);
  CUresult (*get_name)(char* name, int name_bytes, CUdevice device);
  CUresult (*total_memory)(size_t* bytes, CUdevice device);
  CUresult (*error_name)(CUresult error, const char** name);
};

// One device's values as the driver gives them.
struct DeviceAttributes {
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessor_count = 0;
  int clock_rate_khz = 0;
  int memory_clock_rate_khz = 0;
  int memory_bus_width_bits = 0;
  size_t total_memory_bytes = 0;
};

// The record's fields for those values (header and name_bytes are left to EncodeDeviceInfo):
// arch is major * 10 + minor, as Proton writes it; a negative value becomes 0.
record::DeviceInfoRecord MakeDeviceInfo(const DeviceAttributes& attributes);

// Writes one record per device through host.write_device_info. A device that cannot be read is
// reported through host.write_notice, naming the device, the call and the CUDA error; the others
// are still written. Returns false, having written nothing, when the driver is not initialized
// yet (tracing that starts inside cuInit, from InitializeInjection): the caller asks again later.
bool WriteDeviceInfo(const CudaDeviceDriver& driver, const ProtondGpuHost& host);

}  // namespace protond::shim::gpu

#endif  // PROTOND_SHIM_GPU_DEVICE_INFO_H_
