#include "cli/render/device_peaks.h"

#include "gtest/gtest.h"

namespace protond::cli {
namespace {

v1::Device Device(uint32_t arch, uint32_t num_sms, uint32_t bus_width_bits) {
  v1::Device device;
  device.set_arch(arch);
  device.set_num_sms(num_sms);
  device.set_bus_width_bits(bus_width_bits);
  return device;
}

std::string Model(const v1::Device& device) {
  const DevicePeaks* peaks = FindDevicePeaks(device);
  return peaks == nullptr ? "unknown" : std::string(peaks->model);
}

// Each device info as CUDA reports it (PROTON_COMPAT.md has the H100's).
TEST(DevicePeaksTest, ChoosesTheRowByArchSmsAndBusWidth) {
  EXPECT_EQ(Model(Device(90, 132, 5120)), "H100 SXM");
  EXPECT_EQ(Model(Device(90, 132, 6144)), "H200");
  EXPECT_EQ(Model(Device(90, 114, 5120)), "H100 PCIe");
  EXPECT_EQ(Model(Device(80, 108, 5120)), "A100 SXM 80GB");
  EXPECT_EQ(Model(Device(100, 148, 8192)), "B200");
  EXPECT_EQ(Model(Device(89, 142, 384)), "L40S");
  EXPECT_EQ(Model(Device(90, 132, 4096)), "unknown");
  EXPECT_EQ(Model(Device(86, 84, 384)), "unknown");
}

TEST(DevicePeaksTest, H100SxmFiguresAreTheDenseDatasheetOnes) {
  const DevicePeaks* h100 = FindDevicePeaks(Device(90, 132, 5120));
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->flops_per_s[0], 1978.9e12);
  EXPECT_EQ(h100->flops_per_s[1], 989.4e12);
  EXPECT_EQ(h100->flops_per_s[2], 494.7e12);
  EXPECT_EQ(h100->flops_per_s[3], 66.9e12);
  EXPECT_EQ(h100->bytes_per_s, 3.35e12);
}

TEST(DevicePeaksTest, BoundsSumTheWidthsAndTakeTheLarger) {
  const DevicePeaks* h100 = FindDevicePeaks(Device(90, 132, 5120));
  ASSERT_NE(h100, nullptr);
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
  EXPECT_EQ(FindNodePeaks(tree, node), nullptr);  // no device_id
  v1::Metric* device_id = node.add_metrics();
  device_id->set_name("device_id");
  device_id->set_int_value(1);
  ASSERT_NE(FindNodePeaks(tree, node), nullptr);
  EXPECT_EQ(FindNodePeaks(tree, node)->model, "A100 SXM 80GB");
  device_id->set_int_value(0);
  EXPECT_EQ(FindNodePeaks(tree, node), nullptr);  // no such device
}

}  // namespace
}  // namespace protond::cli
