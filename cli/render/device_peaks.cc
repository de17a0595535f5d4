#include "cli/render/device_peaks.h"

#include <cstdint>

#include "absl/strings/str_cat.h"

namespace protond::cli {
namespace {

struct PeaksRow {
  uint32_t arch;  // compute capability major * 10 + minor
  uint32_t num_sms;
  uint32_t bus_width_bits;  // 0: any; only needed to tell the H200 from the H100 SXM
  DevicePeaks peaks;
};

// Dense figures: where a datasheet gives FP8/FP16/TF32 "with sparsity", they are halved here.
// Width 8 on the A100 is INT8 (it has no FP8), as Proton's viewer takes it.
constexpr PeaksRow kRows[] = {
    // NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column: FP8 3,958, FP16 1,979, TF32 989
    // TFLOPS (sparse), FP64 Tensor 67 TFLOPS, 4.8 TB/s HBM3e.
    {90, 132, 6144, {"H200", {1979e12, 989.5e12, 494.5e12, 67e12}, 4.8e12}},
    // NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column: FP8 3,958, FP16 1,979, TF32 989
    // TFLOPS (sparse), FP64 Tensor 67 TFLOPS, 3.35 TB/s HBM3.
    {90, 132, 5120, {"H100 SXM", {1978.9e12, 989.4e12, 494.7e12, 66.9e12}, 3.35e12}},
    // NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe column: FP8 3,026, FP16 1,513, TF32 756
    // TFLOPS (sparse), FP64 Tensor 51 TFLOPS, 2 TB/s HBM2e.
    {90, 114, 0, {"H100 PCIe", {1513e12, 756.5e12, 378e12, 51e12}, 2.0e12}},
    // NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM column: INT8 624 TOPS, FP16 312,
    // TF32 156 TFLOPS (dense), FP64 Tensor 19.5 TFLOPS, 2,039 GB/s HBM2e.
    {80, 108, 0, {"A100 SXM 80GB", {624e12, 312e12, 156e12, 19.5e12}, 2.039e12}},
    // NVIDIA HGX B200 specifications, per-GPU figures: FP8 9, FP16 4.5, TF32 2.2 PFLOPS
    // (sparse), FP64 Tensor 37 TFLOPS, 7.7 TB/s HBM3e.
    {100, 148, 0, {"B200", {4.5e15, 2.25e15, 1.1e15, 37e12}, 7.7e12}},
    // NVIDIA L40S datasheet: FP8 1,466, FP16 733, TF32 366 TFLOPS (sparse), 864 GB/s GDDR6. It
    // gives no FP64 figure: Ada runs FP64 at 1/64 of its 91.6 FP32 TFLOPS.
    {89, 142, 0, {"L40S", {733e12, 362.05e12, 183e12, 1.431e12}, 864e9}},
};

double OwnNumber(const v1::TreeNode& node, absl::string_view name) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() != name) continue;
    return metric.value_case() == v1::Metric::kDoubleValue
               ? metric.double_value()
               : static_cast<double>(metric.int_value());
  }
  return 0;
}

const v1::Metric* FindOwnMetric(const v1::TreeNode& node, absl::string_view name) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() == name) return &metric;
  }
  return nullptr;
}

}  // namespace

const DevicePeaks* FindDevicePeaks(const v1::Device& device) {
  for (const PeaksRow& row : kRows) {
    if (row.arch == device.arch() && row.num_sms == device.num_sms() &&
        (row.bus_width_bits == 0 || row.bus_width_bits == device.bus_width_bits())) {
      return &row.peaks;
    }
  }
  return nullptr;
}

const DevicePeaks* FindNodePeaks(const v1::Tree& tree, const v1::TreeNode& node) {
  const v1::Metric* device_id = FindOwnMetric(node, "device_id");
  if (device_id == nullptr) return nullptr;
  for (const v1::Device& device : tree.devices()) {
    if (device.device_id() == static_cast<uint64_t>(device_id->int_value())) {
      return FindDevicePeaks(device);
    }
  }
  return nullptr;
}

RooflineBounds NodeRooflineBounds(const DevicePeaks& peaks, const v1::TreeNode& node) {
  RooflineBounds bounds;
  for (size_t w = 0; w < kFlopsWidths.size(); ++w) {
    bounds.compute_s +=
        OwnNumber(node, absl::StrCat("flops", kFlopsWidths[w])) / peaks.flops_per_s[w];
  }
  bounds.memory_s = OwnNumber(node, "bytes") / peaks.bytes_per_s;
  return bounds;
}

}  // namespace protond::cli
