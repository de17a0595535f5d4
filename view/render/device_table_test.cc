#include "view/render/device_table.h"

#include "gtest/gtest.h"

namespace protond::view {
namespace {

v1::Device Device(uint32_t pid, uint32_t device_id, const std::string& name, uint32_t arch,
                  uint32_t num_sms, uint32_t clock_khz, uint32_t memory_clock_khz,
                  uint32_t bus_width_bits, uint64_t memory_bytes) {
  v1::Device device;
  device.set_pid(pid);
  device.set_device_id(device_id);
  device.set_name(name);
  device.set_arch(arch);
  device.set_num_sms(num_sms);
  device.set_clock_rate_khz(clock_khz);
  device.set_memory_clock_rate_khz(memory_clock_khz);
  device.set_bus_width_bits(bus_width_bits);
  device.set_memory_bytes(memory_bytes);
  return device;
}

TEST(DeviceTableTest, OneLinePerProcessAndDevice) {
  v1::Tree tree;
  // The H100 as Proton reports it; 85029158912 bytes are 79.19 GiB.
  *tree.add_devices() =
      Device(4242, 0, "NVIDIA H100 80GB HBM3", 90, 132, 1980000, 2619000, 5120, 85029158912);
  *tree.add_devices() =
      Device(4242, 1, "NVIDIA H100 80GB HBM3", 90, 132, 1980000, 2619000, 5120, 85029158912);
  // 85097971712 bytes are 79.25 GiB.
  *tree.add_devices() =
      Device(977, 0, "NVIDIA A100-SXM4-80GB", 80, 108, 1410000, 1593000, 5120, 85097971712);
  tree.mutable_devices(0)->set_used(true);
  tree.mutable_devices(2)->set_used(true);
  EXPECT_EQ(RenderDeviceTable(3, tree.devices()),
            " PID  DEVICE  NAME                   ARCH   SMS  CLOCK (MHz)  MEMORY CLOCK (MHz)  "
            "BUS (bits)  MEMORY (GiB)  USE\n"
            "4242       0  NVIDIA H100 80GB HBM3  sm_90  132         1980                2619  "
            "      5120          79.2  ran work\n"
            "4242       1  NVIDIA H100 80GB HBM3  sm_90  132         1980                2619  "
            "      5120          79.2  visible only\n"
            " 977       0  NVIDIA A100-SXM4-80GB  sm_80  108         1410                1593  "
            "      5120          79.3  ran work\n");
}

TEST(DeviceTableTest, UnknownNameAndArchShowADash) {
  v1::Tree tree;
  *tree.add_devices() = Device(7, 2, "", 0, 0, 0, 0, 0, 0);
  EXPECT_EQ(RenderDeviceTable(3, tree.devices()),
            "PID  DEVICE  NAME  ARCH  SMS  CLOCK (MHz)  MEMORY CLOCK (MHz)  BUS (bits)  "
            "MEMORY (GiB)  USE\n"
            "  7       2  -     -       0            0                   0           0  "
            "         0.0  visible only\n");
}

TEST(DeviceTableTest, NoDevicesSaysSo) {
  EXPECT_EQ(RenderDeviceTable(3, {}), "session 3 recorded no GPU devices\n");
}

TEST(DeviceTableTest, ClocksInMegahertz) {
  EXPECT_EQ(FormatMhz(1980000), "1980");
  EXPECT_EQ(FormatMhz(1755500), "1755.5");
  EXPECT_EQ(FormatMhz(1), "0.001");
  EXPECT_EQ(FormatMhz(0), "0");
}

}  // namespace
}  // namespace protond::view
