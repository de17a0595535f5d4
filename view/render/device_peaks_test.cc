#include "view/render/device_peaks.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace protond::view {
namespace {

v1::Device Device(uint32_t arch, uint32_t num_sms, uint32_t bus_width_bits) {
  v1::Device device;
  device.set_arch(arch);
  device.set_num_sms(num_sms);
  device.set_bus_width_bits(bus_width_bits);
  return device;
}

v1::Device Named(const std::string& name, uint32_t arch, uint32_t num_sms, uint32_t bus_width_bits,
                 uint32_t clock_rate_khz = 0, uint32_t memory_clock_rate_khz = 0) {
  v1::Device device = Device(arch, num_sms, bus_width_bits);
  device.set_name(name);
  device.set_clock_rate_khz(clock_rate_khz);
  device.set_memory_clock_rate_khz(memory_clock_rate_khz);
  return device;
}

std::string Source(const v1::Device& device) {
  const std::optional<DevicePeaks> peaks = FindDevicePeaks(device);
  return peaks.has_value() ? peaks->source : "unknown";
}

// Each device info as CUDA reports it (PROTON_COMPAT.md has the H100's); Proton's Hatchet files
// carry no name.
TEST(DevicePeaksTest, WithoutANameTheRowIsChosenByArchSmsAndBusWidth) {
  EXPECT_EQ(Source(Device(90, 132, 5120)), "H100 SXM datasheet");
  EXPECT_EQ(Source(Device(90, 132, 6016)), "H200 datasheet");  // what an H200 reported
  EXPECT_EQ(Source(Device(90, 114, 5120)), "H100 PCIe datasheet");
  EXPECT_EQ(Source(Device(80, 108, 5120)), "A100 SXM 80GB datasheet");
  EXPECT_EQ(Source(Device(100, 148, 8192)), "B200 datasheet");
  EXPECT_EQ(Source(Device(89, 142, 384)), "L40S datasheet");
  EXPECT_EQ(Source(Device(90, 132, 4096)), "unknown");  // no clocks to compute with
  EXPECT_EQ(Source(Device(86, 84, 384)), "unknown");
}

// Issue 26: the H200 got no verdict, its 6016-bit bus matching no row.
TEST(DevicePeaksTest, ANamedDeviceIsFoundByItsName) {
  EXPECT_EQ(Source(Named("NVIDIA H200", 90, 132, 6144)), "H200 datasheet");
  EXPECT_EQ(Source(Named("NVIDIA H100 80GB HBM3", 90, 132, 5120)), "H100 SXM datasheet");
  EXPECT_EQ(Source(Named("NVIDIA H100 PCIe", 90, 114, 5120)), "H100 PCIe datasheet");
  EXPECT_EQ(Source(Named("NVIDIA A100-SXM4-80GB", 80, 108, 5120)), "A100 SXM 80GB datasheet");
  EXPECT_EQ(Source(Named("NVIDIA B200", 100, 148, 8192)), "B200 datasheet");
  EXPECT_EQ(Source(Named("NVIDIA L40S", 89, 142, 384)), "L40S datasheet");
}

// A named part the table lacks is computed, even with the shape of a row (an H100 NVL has an
// H100 SXM's 132 SMs): SMs x clock x the arch's rate per SM, and 2 x memory clock x bus width.
TEST(DevicePeaksTest, ADeviceTheTableLacksIsComputedFromItsClocks) {
  const std::optional<DevicePeaks> nvl =
      FindDevicePeaks(Named("NVIDIA H100 NVL", 90, 132, 6144, 1785000, 2619000));
  ASSERT_TRUE(nvl.has_value());
  EXPECT_EQ(nvl->source, "computed from its clocks (1785 MHz, memory 2619 MHz)");
  EXPECT_DOUBLE_EQ(nvl->flops_per_s[0], 132 * 1785e6 * 8192);
  EXPECT_DOUBLE_EQ(nvl->flops_per_s[1], 132 * 1785e6 * 4096);
  EXPECT_DOUBLE_EQ(nvl->flops_per_s[2], 132 * 1785e6 * 2048);
  EXPECT_DOUBLE_EQ(nvl->flops_per_s[3], 132 * 1785e6 * 256);
  EXPECT_DOUBLE_EQ(nvl->bytes_per_s, 2 * 2619e6 * 6144 / 8);
  EXPECT_EQ(Source(Named("NVIDIA H100 NVL", 90, 132, 6144)), "unknown");           // no clocks
  EXPECT_EQ(Source(Named("Tesla T4", 75, 40, 256, 1590000, 5001000)), "unknown");  // no rates
}

// The rates per SM agree with the datasheets at the clocks the datasheets assume: computing a
// listed part gives its row's figures, to 0.2%.
TEST(DevicePeaksTest, ComputedPeaksAgreeWithTheDatasheets) {
  struct Part {
    v1::Device computed;  // a name the table does not hold, so the peaks are computed
    v1::Device listed;
  };
  const Part parts[] = {
      {Named("A100 computed", 80, 108, 5120, 1410000, 1593000), Device(80, 108, 5120)},
      {Named("H100 computed", 90, 132, 5120, 1830000, 2619000), Device(90, 132, 5120)},
      {Named("L40S computed", 89, 142, 384, 2520000, 9001000), Device(89, 142, 384)},
  };
  for (const Part& part : parts) {
    SCOPED_TRACE(part.computed.name());
    const std::optional<DevicePeaks> computed = FindDevicePeaks(part.computed);
    const std::optional<DevicePeaks> listed = FindDevicePeaks(part.listed);
    ASSERT_TRUE(computed.has_value() && listed.has_value());
    for (size_t w = 0; w < 3; ++w) {  // FP64 differs: datasheets quote it at another clock
      EXPECT_NEAR(computed->flops_per_s[w] / listed->flops_per_s[w], 1.0, 0.012) << w;
    }
    EXPECT_NEAR(computed->bytes_per_s / listed->bytes_per_s, 1.0, 0.025);
  }
}

TEST(DevicePeaksTest, H100SxmFiguresAreTheDenseDatasheetOnes) {
  const std::optional<DevicePeaks> h100 = FindDevicePeaks(Device(90, 132, 5120));
  ASSERT_TRUE(h100.has_value());
  EXPECT_EQ(h100->flops_per_s[0], 1978.9e12);
  EXPECT_EQ(h100->flops_per_s[1], 989.4e12);
  EXPECT_EQ(h100->flops_per_s[2], 494.7e12);
  EXPECT_EQ(h100->flops_per_s[3], 66.9e12);
  EXPECT_EQ(h100->bytes_per_s, 3.35e12);
}

TEST(DevicePeaksTest, BoundsSumTheWidthsAndTakeTheLarger) {
  const std::optional<DevicePeaks> h100 = FindDevicePeaks(Device(90, 132, 5120));
  ASSERT_TRUE(h100.has_value());
  v1::TreeNode node;
  for (auto [name, value] : {std::pair{"flops8", 1978.9e12},
                             {"flops16", 989.4e12},
                             {"flops64", 6.69e12},
                             {"bytes", 3.35e12}}) {
    v1::Metric* metric = node.add_metrics();
    metric->set_name(name);
    metric->set_double_value(value);
  }
  const RooflineBounds bounds = NodeRooflineBounds(*h100, node);
  EXPECT_DOUBLE_EQ(bounds.compute_s, 2.1);  // 1 s of FP8 + 1 s of FP16 + 0.1 s of FP64
  EXPECT_DOUBLE_EQ(bounds.memory_s, 1.0);
  EXPECT_DOUBLE_EQ(bounds.limit_s(), 2.1);
  EXPECT_FALSE(bounds.memory_bound());
}

TEST(DevicePeaksTest, NodePeaksFollowTheDeviceId) {
  v1::Tree tree;
  *tree.add_devices() = Device(80, 108, 5120);
  tree.mutable_devices(0)->set_device_id(1);
  v1::TreeNode node;
  EXPECT_EQ(FindNodePeaks(tree, node), std::nullopt);  // no device_id
  v1::Metric* device_id = node.add_metrics();
  device_id->set_name("device_id");
  device_id->set_int_value(1);
  ASSERT_TRUE(FindNodePeaks(tree, node).has_value());
  EXPECT_EQ(FindNodePeaks(tree, node)->source, "A100 SXM 80GB datasheet");
  device_id->set_int_value(0);
  EXPECT_EQ(FindNodePeaks(tree, node), std::nullopt);  // no such device
}

}  // namespace
}  // namespace protond::view
