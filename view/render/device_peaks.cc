#include "view/render/device_peaks.h"

#include <cstdint>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "view/render/device_table.h"
#include "view/render/metric_values.h"

namespace protond::view {
namespace {

struct PeaksRow {
  absl::string_view model;
  // Part of the name CUDA reports ("NVIDIA H100 80GB HBM3"); and, for a device info without a
  // name (Proton's Hatchet files have none), the compute capability (major * 10 + minor), SMs
  // and memory bus width (0: any) that tell the part.
  absl::string_view name;
  uint32_t arch;
  uint32_t num_sms;
  uint32_t bus_width_bits;
  std::array<double, 4> flops_per_s;
  double bytes_per_s;
};

// Dense figures: where a datasheet gives FP8/FP16/TF32 "with sparsity", they are halved here.
// Width 8 on the A100 is INT8 (it has no FP8), as Proton's viewer takes it.
constexpr PeaksRow kRows[] = {
    // NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column: FP8 3,958, FP16 1,979, TF32 989
    // TFLOPS (sparse), FP64 Tensor 67 TFLOPS, 4.8 TB/s HBM3e. CUDA 13 reports a 6016-bit bus.
    {"H200", "H200", 90, 132, 6016, {1979e12, 989.5e12, 494.5e12, 67e12}, 4.8e12},
    // NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe column: FP8 3,026, FP16 1,513, TF32 756
    // TFLOPS (sparse), FP64 Tensor 51 TFLOPS, 2 TB/s HBM2e.
    {"H100 PCIe", "H100 PCIe", 90, 114, 0, {1513e12, 756.5e12, 378e12, 51e12}, 2.0e12},
    // NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column: FP8 3,958, FP16 1,979, TF32 989
    // TFLOPS (sparse), FP64 Tensor 67 TFLOPS, 3.35 TB/s HBM3.
    {"H100 SXM",
     "H100 80GB HBM3",
     90,
     132,
     5120,
     {1978.9e12, 989.4e12, 494.7e12, 66.9e12},
     3.35e12},
    // NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM column: INT8 624 TOPS, FP16 312,
    // TF32 156 TFLOPS (dense), FP64 Tensor 19.5 TFLOPS, 2,039 GB/s HBM2e.
    {"A100 SXM 80GB", "A100-SXM4-80GB", 80, 108, 0, {624e12, 312e12, 156e12, 19.5e12}, 2.039e12},
    // NVIDIA HGX B200 specifications, per-GPU figures: FP8 9, FP16 4.5, TF32 2.2 PFLOPS
    // (sparse), FP64 Tensor 37 TFLOPS, 7.7 TB/s HBM3e.
    {"B200", "B200", 100, 148, 0, {4.5e15, 2.25e15, 1.1e15, 37e12}, 7.7e12},
    // NVIDIA L40S datasheet: FP8 1,466, FP16 733, TF32 366 TFLOPS (sparse), 864 GB/s GDDR6. It
    // gives no FP64 figure: Ada runs FP64 at 1/64 of its 91.6 FP32 TFLOPS.
    {"L40S", "L40S", 89, 142, 0, {733e12, 362.05e12, 183e12, 1.431e12}, 864e9},
};

// Dense tensor-core FLOPs per SM per clock, by kFlopsWidths, of each architecture with data-center
// parts; each checked against a datasheet above (SMs x clock x rate).
struct ArchRates {
  uint32_t arch;
  std::array<double, 4> flops_per_sm_per_clock;
};
constexpr ArchRates kArchRates[] = {
    {80, {4096, 2048, 1024, 128}},    // A100: FP16 312 TFLOPS = 108 SMs x 1410 MHz x 2048
    {86, {2048, 1024, 512, 4}},       // A10: FP16 125 TFLOPS = 72 x 1695 MHz x 1024; FP64 1/64
    {89, {2048, 1024, 512, 4}},       // L40S: FP8 733 TFLOPS = 142 x 2520 MHz x 2048
    {90, {8192, 4096, 2048, 256}},    // H100 SXM: FP16 989.4 TFLOPS = 132 x 1830 MHz x 4096
    {100, {16384, 8192, 4096, 128}},  // B200: FP64 37 TFLOPS = 148 x 1965 MHz x 128
};

DevicePeaks FromRow(const PeaksRow& row) {
  return {absl::StrCat(row.model, " datasheet"), row.flops_per_s, row.bytes_per_s};
}

// A named device the table lacks is computed, not guessed from a row of the same shape (an
// H100 NVL has an H100 SXM's SMs).
const PeaksRow* FindRow(const v1::Device& device) {
  for (const PeaksRow& row : kRows) {
    if (device.name().empty()
            ? row.arch == device.arch() && row.num_sms == device.num_sms() &&
                  (row.bus_width_bits == 0 || row.bus_width_bits == device.bus_width_bits())
            : absl::StrContains(device.name(), row.name)) {
      return &row;
    }
  }
  return nullptr;
}

std::optional<DevicePeaks> ComputedPeaks(const v1::Device& device) {
  const ArchRates* rates = nullptr;
  for (const ArchRates& candidate : kArchRates) {
    if (candidate.arch == device.arch()) rates = &candidate;
  }
  if (rates == nullptr || device.num_sms() == 0 || device.clock_rate_khz() == 0 ||
      device.memory_clock_rate_khz() == 0 || device.bus_width_bits() == 0) {
    return std::nullopt;
  }
  DevicePeaks peaks;
  peaks.source = absl::StrCat("computed from its clocks (", FormatMhz(device.clock_rate_khz()),
                              " MHz, memory ", FormatMhz(device.memory_clock_rate_khz()), " MHz)");
  const double sm_clocks_per_s = device.num_sms() * (device.clock_rate_khz() * 1e3);
  for (size_t w = 0; w < kFlopsWidths.size(); ++w) {
    peaks.flops_per_s[w] = sm_clocks_per_s * rates->flops_per_sm_per_clock[w];
  }
  // Two transfers per memory clock (double data rate), bus width in bits.
  peaks.bytes_per_s = 2 * (device.memory_clock_rate_khz() * 1e3) * device.bus_width_bits() / 8;
  return peaks;
}

double OwnNumber(const v1::TreeNode& node, absl::string_view name) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() != name) continue;
    return ValueOf(metric).AsDouble();  // a vector's: its sum
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

std::optional<DevicePeaks> FindDevicePeaks(const v1::Device& device) {
  if (const PeaksRow* row = FindRow(device)) return FromRow(*row);
  return ComputedPeaks(device);
}

std::optional<DevicePeaks> FindNodePeaks(const v1::Tree& tree, const v1::TreeNode& node) {
  const v1::Metric* device_id = FindOwnMetric(node, "device_id");
  if (device_id == nullptr) return std::nullopt;
  for (const v1::Device& device : tree.devices()) {
    if (device.device_id() == static_cast<uint64_t>(device_id->int_value())) {
      return FindDevicePeaks(device);
    }
  }
  return std::nullopt;
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

}  // namespace protond::view
