#include "shim/gpu/device_info.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace protond::shim::gpu {
namespace {

// A driver with the H100 of Proton's device_info at ordinal 0 and an A100 at ordinal 1, whose
// calls fail where a test says so.
struct FakeDriver {
  CUresult count_result = CUDA_SUCCESS;
  std::map<std::pair<int, CUdevice_attribute>, CUresult> failing_attributes;
  CUresult name_result = CUDA_SUCCESS;

  struct Device {
    std::map<CUdevice_attribute, int> attributes;
    const char* name;
    size_t memory_bytes;
  };
  std::vector<Device> devices = {
      {{{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000},
        {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 2619000},
        {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 5120}},
       "NVIDIA H100 80GB HBM3",
       85029158912},
      {{{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 8},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 108},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1410000},
        {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 1593000},
        {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 5120}},
       "NVIDIA A100-SXM4-80GB",
       85097971712},
  };

  // What the host was given.
  struct Written {
    uint32_t device_id;
    record::DeviceInfoRecord device;
    std::string name;
  };
  std::vector<Written> written;
  std::vector<std::string> notices;
};

FakeDriver* g_driver = nullptr;

// Devices are handed out as ordinal + 100, so that a mix-up of handle and ordinal shows.
constexpr CUdevice kHandleBase = 100;

const CudaDeviceDriver kDriver = {
    /*get_count=*/
    [](int* count) {
      *count = static_cast<int>(g_driver->devices.size());
      return g_driver->count_result;
    },
    /*get=*/
    [](CUdevice* device, int ordinal) {
      *device = kHandleBase + ordinal;
      return CUDA_SUCCESS;
    },
    /*get_attribute=*/
    [](int* value, CUdevice_attribute attribute, CUdevice device) {
      const int ordinal = device - kHandleBase;
      auto failing = g_driver->failing_attributes.find({ordinal, attribute});
      if (failing != g_driver->failing_attributes.end()) return failing->second;
      *value = g_driver->devices.at(ordinal).attributes.at(attribute);
      return CUDA_SUCCESS;
    },
    /*get_name=*/
    [](char* name, int name_bytes, CUdevice device) {
      std::strncpy(name, g_driver->devices.at(device - kHandleBase).name, name_bytes);
      return g_driver->name_result;
    },
    /*total_memory=*/
    [](size_t* bytes, CUdevice device) {
      *bytes = g_driver->devices.at(device - kHandleBase).memory_bytes;
      return CUDA_SUCCESS;
    },
    /*error_name=*/
    [](CUresult error, const char** name) {
      static const std::map<CUresult, const char*> kNames = {
          {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
          {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"}};
      auto it = kNames.find(error);
      if (it == kNames.end()) return CUDA_ERROR_INVALID_VALUE;
      *name = it->second;
      return CUDA_SUCCESS;
    },
};

const ProtondGpuHost kHost = {
    /*current_context=*/[] { return 0u; },
    /*recording_set=*/[] { return 0u; },
    /*api_returned=*/[](int) {},
    /*launch_target=*/[](uint32_t context, uint32_t*) { return context; },
    /*intern_context=*/[](uint32_t, const char*) { return 0u; },
    /*context_name=*/[](uint32_t, uint32_t*) { return ""; },
    /*intern_kernel_name=*/[](const char*) { return 0u; },
    /*intern_name=*/[](const char*, uint8_t) { return 0u; },
    /*write_activity=*/[](const record::GpuActivityRecord*, uint32_t) {},
    /*write_pc_sample=*/[](const record::PcSampleRecord*) {},
    /*write_notice=*/[](const char* text) { g_driver->notices.push_back(text); },
    /*count_dropped=*/[](uint64_t) {},
    /*write_device_info=*/
    [](uint32_t device_id, const record::DeviceInfoRecord* device, const char* name) {
      g_driver->written.push_back({device_id, *device, name});
    },
    /*write_cubin=*/[](uint64_t, const void*, size_t) {},
};

class DeviceInfoTest : public ::testing::Test {
 protected:
  DeviceInfoTest() { g_driver = &driver_; }
  ~DeviceInfoTest() override { g_driver = nullptr; }

  FakeDriver driver_;
};

TEST(MakeDeviceInfoTest, TheH100AsProtonReportsIt) {
  const record::DeviceInfoRecord device =
      MakeDeviceInfo({9, 0, 132, 1980000, 2619000, 5120, 85029158912});
  EXPECT_EQ(device.arch, 90u);
  EXPECT_EQ(device.num_sms, 132u);
  EXPECT_EQ(device.clock_rate_khz, 1980000u);
  EXPECT_EQ(device.memory_clock_rate_khz, 2619000u);
  EXPECT_EQ(device.bus_width_bits, 5120u);
  EXPECT_EQ(device.memory_bytes, 85029158912u);
  EXPECT_EQ(device.header.kind, 0);  // left to the encoder
  EXPECT_EQ(device.name_bytes, 0u);
}

TEST(MakeDeviceInfoTest, ArchIsMajorTimesTenPlusMinorAndNegativesAreZero) {
  EXPECT_EQ(MakeDeviceInfo({8, 6, 0, 0, 0, 0, 0}).arch, 86u);
  EXPECT_EQ(MakeDeviceInfo({10, 0, 0, 0, 0, 0, 0}).arch, 100u);
  const record::DeviceInfoRecord nonsense = MakeDeviceInfo({-1, 0, -2, -3, -4, -5, 0});
  EXPECT_EQ(nonsense.arch, 0u);
  EXPECT_EQ(nonsense.num_sms, 0u);
  EXPECT_EQ(nonsense.clock_rate_khz, 0u);
  EXPECT_EQ(nonsense.memory_clock_rate_khz, 0u);
  EXPECT_EQ(nonsense.bus_width_bits, 0u);
}

TEST_F(DeviceInfoTest, OneRecordPerDeviceByOrdinal) {
  EXPECT_TRUE(WriteDeviceInfo(kDriver, kHost));
  EXPECT_TRUE(driver_.notices.empty());
  ASSERT_EQ(driver_.written.size(), 2u);
  EXPECT_EQ(driver_.written[0].device_id, 0u);
  EXPECT_EQ(driver_.written[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(driver_.written[0].device.arch, 90u);
  EXPECT_EQ(driver_.written[0].device.num_sms, 132u);
  EXPECT_EQ(driver_.written[0].device.memory_bytes, 85029158912u);
  EXPECT_EQ(driver_.written[1].device_id, 1u);
  EXPECT_EQ(driver_.written[1].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(driver_.written[1].device.arch, 80u);
  EXPECT_EQ(driver_.written[1].device.clock_rate_khz, 1410000u);
  EXPECT_EQ(driver_.written[1].device.memory_clock_rate_khz, 1593000u);
  EXPECT_EQ(driver_.written[1].device.bus_width_bits, 5120u);
}

TEST_F(DeviceInfoTest, ADeviceThatCannotBeReadIsANoticeAndTheOthersAreWritten) {
  driver_.failing_attributes[{0, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT}] =
      CUDA_ERROR_INVALID_DEVICE;
  EXPECT_TRUE(WriteDeviceInfo(kDriver, kHost));
  ASSERT_EQ(driver_.notices.size(), 1u);
  EXPECT_EQ(driver_.notices[0],
            "no device information for CUDA device 0: cuDeviceGetAttribute(MULTIPROCESSOR_COUNT) "
            "failed with CUDA_ERROR_INVALID_DEVICE");
  ASSERT_EQ(driver_.written.size(), 1u);
  EXPECT_EQ(driver_.written[0].device_id, 1u);
}

TEST_F(DeviceInfoTest, AnErrorWithoutANameIsShownByNumber) {
  // A value the driver gives no name, inside the enum's range (UBSan checks loads of it).
  driver_.name_result = static_cast<CUresult>(1000);
  EXPECT_TRUE(WriteDeviceInfo(kDriver, kHost));
  EXPECT_EQ(driver_.notices,
            (std::vector<std::string>{"no device information for CUDA device 0: cuDeviceGetName "
                                      "failed with CUDA error 1000",
                                      "no device information for CUDA device 1: cuDeviceGetName "
                                      "failed with CUDA error 1000"}));
  EXPECT_TRUE(driver_.written.empty());
}

TEST_F(DeviceInfoTest, NoDeviceCountIsANotice) {
  driver_.count_result = CUDA_ERROR_NO_DEVICE;
  EXPECT_TRUE(WriteDeviceInfo(kDriver, kHost));
  EXPECT_EQ(driver_.notices,
            (std::vector<std::string>{"no device information: cuDeviceGetCount failed with "
                                      "CUDA_ERROR_NO_DEVICE"}));
  EXPECT_TRUE(driver_.written.empty());
}

// Tracing started from InitializeInjection runs inside cuInit: the tracer asks again later.
TEST_F(DeviceInfoTest, ADriverNotInitializedYetWritesNothingAndSaysSo) {
  driver_.count_result = CUDA_ERROR_NOT_INITIALIZED;
  EXPECT_FALSE(WriteDeviceInfo(kDriver, kHost));
  EXPECT_TRUE(driver_.notices.empty());
  EXPECT_TRUE(driver_.written.empty());
}

}  // namespace
}  // namespace protond::shim::gpu
