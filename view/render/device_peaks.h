// Peak FLOP/s per data width and peak memory bandwidth of NVIDIA GPUs (public datasheet figures,
// or computed from the device info), and the roofline bounds they put on a kernel: what `util`,
// `protonctl top` and the roofline verdict are measured against. Pure functions; no I/O.
#ifndef PROTOND_VIEW_RENDER_DEVICE_PEAKS_H_
#define PROTOND_VIEW_RENDER_DEVICE_PEAKS_H_

#include <array>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "protond.pb.h"

namespace protond::view {

// The data widths of Proton's flops metrics: "flops8", "flops16", "flops32", "flops64".
inline constexpr std::array<int, 4> kFlopsWidths = {8, 16, 32, 64};

struct DevicePeaks {
  // Where the figures come from: a datasheet row ("H100 SXM") or, for a device the table lacks,
  // how they were computed ("computed for sm_90: 132 SMs at 1980 MHz, 6016-bit bus at 3201 MHz").
  std::string source;
  // Dense tensor-core FLOP/s, by kFlopsWidths: FP8, FP16/BF16, TF32 and FP64 (what Triton's dot
  // runs on for each width).
  std::array<double, 4> flops_per_s;
  double bytes_per_s;  // device memory bandwidth
};

// The peaks of `device`. First a datasheet row, found by the device's name ("NVIDIA H200"), or,
// for a device info without a name, by compute capability, SM count and memory bus width. Then,
// for a GPU the table lacks, figures computed as Proton's viewer does: the SMs times the clock
// CUDA reports times the architecture's dense tensor FLOPs per SM per clock, and twice the memory
// clock times the bus width; an upper bound, since tensor work runs below the top boost clock.
// Nothing for an architecture without per-SM rates here, or a device info without its clocks.
std::optional<DevicePeaks> FindDevicePeaks(const v1::Device& device);

// The peaks of the device a GPU node ran on: its "device_id" metric, looked up in the tree's
// devices. Nothing when the node has no device id or the device's peaks are not known.
std::optional<DevicePeaks> FindNodePeaks(const v1::Tree& tree, const v1::TreeNode& node);

// The least time a node's work needs on a device: its flops of each width at that width's peak
// (summed), and its bytes at the memory bandwidth. The larger bound is the roofline's limit.
struct RooflineBounds {
  double compute_s = 0;
  double memory_s = 0;
  void Add(const RooflineBounds& other) {
    compute_s += other.compute_s;
    memory_s += other.memory_s;
  }
  double limit_s() const { return compute_s > memory_s ? compute_s : memory_s; }
  bool memory_bound() const { return memory_s > compute_s; }
};

// From the node's own "flops8".."flops64" and "bytes" metrics.
RooflineBounds NodeRooflineBounds(const DevicePeaks& peaks, const v1::TreeNode& node);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_DEVICE_PEAKS_H_
