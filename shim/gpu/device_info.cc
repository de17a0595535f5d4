#include "shim/gpu/device_info.h"

#include <string>

namespace protond::shim::gpu {
namespace {

uint32_t NonNegative(int value) { return value > 0 ? static_cast<uint32_t>(value) : 0; }

std::string ErrorText(const CudaDeviceDriver& driver, CUresult result) {
  const char* name = nullptr;
  if (driver.error_name(result, &name) == CUDA_SUCCESS && name != nullptr) return name;
  return "CUDA error " + std::to_string(result);
}

// Reads device `ordinal` into `attributes` and `name`; on failure, returns which call failed.
std::string ReadDevice(const CudaDeviceDriver& driver, int ordinal, DeviceAttributes& attributes,
                       char* name, int name_bytes) {
  CUdevice device;
  if (const CUresult result = driver.get(&device, ordinal); result != CUDA_SUCCESS) {
    return "cuDeviceGet failed with " + ErrorText(driver, result);
  }
  const struct {
    CUdevice_attribute attribute;
    const char* text;
    int* value;
  } queries[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR",
       &attributes.compute_capability_major},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR",
       &attributes.compute_capability_minor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT",
       &attributes.multiprocessor_count},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "CLOCK_RATE", &attributes.clock_rate_khz},
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "MEMORY_CLOCK_RATE",
       &attributes.memory_clock_rate_khz},
      {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "GLOBAL_MEMORY_BUS_WIDTH",
       &attributes.memory_bus_width_bits},
  };
  for (const auto& query : queries) {
    const CUresult result = driver.get_attribute(query.value, query.attribute, device);
    if (result != CUDA_SUCCESS) {
      return std::string("cuDeviceGetAttribute(") + query.text + ") failed with " +
             ErrorText(driver, result);
    }
  }
  if (const CUresult result = driver.get_name(name, name_bytes, device); result != CUDA_SUCCESS) {
    return "cuDeviceGetName failed with " + ErrorText(driver, result);
  }
  name[name_bytes - 1] = '\0';
  if (const CUresult result = driver.total_memory(&attributes.total_memory_bytes, device);
      result != CUDA_SUCCESS) {
    return "cuDeviceTotalMem failed with " + ErrorText(driver, result);
  }
  return "";
}

}  // namespace

record::DeviceInfoRecord MakeDeviceInfo(const DeviceAttributes& attributes) {
  record::DeviceInfoRecord device{};
  device.arch =
      NonNegative(attributes.compute_capability_major * 10 + attributes.compute_capability_minor);
  device.num_sms = NonNegative(attributes.multiprocessor_count);
  device.clock_rate_khz = NonNegative(attributes.clock_rate_khz);
  device.memory_clock_rate_khz = NonNegative(attributes.memory_clock_rate_khz);
  device.bus_width_bits = NonNegative(attributes.memory_bus_width_bits);
  device.memory_bytes = attributes.total_memory_bytes;
  return device;
}

bool WriteDeviceInfo(const CudaDeviceDriver& driver, const ProtondGpuHost& host) {
  int count = 0;
  const CUresult result = driver.get_count(&count);
  if (result == CUDA_ERROR_NOT_INITIALIZED) return false;
  if (result != CUDA_SUCCESS) {
    host.write_notice(
        ("no device information: cuDeviceGetCount failed with " + ErrorText(driver, result))
            .c_str());
    return true;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    DeviceAttributes attributes;
    char name[256] = {};  // cudaDeviceProp's size: the driver's names are shorter
    const std::string failure = ReadDevice(driver, ordinal, attributes, name, sizeof(name));
    if (!failure.empty()) {
      host.write_notice(
          ("no device information for CUDA device " + std::to_string(ordinal) + ": " + failure)
              .c_str());
      continue;
    }
    // The ordinal is what CUPTI puts in its records' deviceId.
    const record::DeviceInfoRecord info = MakeDeviceInfo(attributes);
    host.write_device_info(static_cast<uint32_t>(ordinal), &info, name);
  }
  return true;
}

}  // namespace protond::shim::gpu
