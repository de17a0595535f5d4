// `protonctl top`: the GPU work that took the most time, by kernel name over all call paths, with
// achieved rates and a roofline verdict against the device's peaks (device_peaks.h), like
// `nsys stats`' kernel summary. Pure functions; no I/O.
#ifndef PROTOND_VIEW_TREE_TOP_KERNELS_H_
#define PROTOND_VIEW_TREE_TOP_KERNELS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"
#include "view/render/device_peaks.h"
#include "view/tree/frame_names.h"

namespace protond::view {

inline constexpr int kDefaultTopKernels = 20;

// One kernel name's GPU work over all its call paths: every node with GPU time (kernels, copies
// and sets) of that driver name.
struct KernelWork {
  std::string name;  // as the driver gave it
  double time_ns = 0;
  uint64_t count = 0;
  double flops = 0;
  double bytes = 0;
  bool has_flops = false;
  bool has_bytes = false;
  RooflineBounds bounds;
  bool judged = false;  // some of its work ran on a device the peak table knows
};

// The GPU work of `profile` by kernel name, most time first (ties in the tree's order), with
// launch-metadata frames left out: what `top` lists, for other views of it (protonctl history).
// Empty for a profile without GPU work; InvalidArgumentError for a tree of a bad shape.
absl::StatusOr<std::vector<KernelWork>> KernelsByGpuTime(const v1::Tree& profile);

// One kernel as `top` lists it: the numbers, and the cells it prints from them.
struct TopKernelRow {
  std::string name;        // as the driver gave it
  std::string shown_name;  // as `top` shows it (KernelNames)
  double time_ns = 0;
  double share = 0;  // of all GPU time, 0..1
  uint64_t count = 0;
  std::optional<double> average_ns;   // none without launches
  std::optional<double> tflop_per_s;  // none without "flops*" metrics
  std::optional<double> gbyte_per_s;  // none without "bytes"
  std::optional<bool> memory_bound;   // the verdict: none without one
  std::optional<double> percent_of_peak;
  std::string no_verdict_reason;   // why there is no verdict; empty with one
  std::vector<std::string> cells;  // under TopKernelColumns, as `top` prints them
};

// `top`'s listing before it is printed, for protonctl and the web page's /api/top alike.
struct TopKernels {
  std::vector<std::string> device_lines;  // DevicePeaksLine of each device, or why there is none
  std::vector<TopKernelRow> rows;         // the heaviest first
  std::string note;  // "no GPU kernels in this profile" when there are none; else empty
};

// The column headers of TopKernelRow::cells.
std::vector<std::string> TopKernelColumns();

// Which peaks the verdicts on `device` use: "device 0 (arch 90, 132 SMs, 5120-bit bus): H100 SXM
// datasheet peaks FP8 1978.9, ... GB/s", or why it gets no verdict.
std::string DevicePeaksLine(const v1::Device& device);

// The `limit` kernels with the most GPU time of `tree`, as RenderTopKernels prints them.
absl::StatusOr<TopKernels> BuildTopKernels(const v1::Tree& tree, int limit, KernelNames names);

// A line per device of the profile (its model in the peak table, or why there is no verdict),
// then a table of the `limit` kernels with the most GPU time: total time, share of all GPU time,
// launches, average time, achieved TFLOP/s (all "flops*" metrics) and GB/s ("bytes"), the bound
// (compute or memory: whichever roofline bound is larger) and the percent of that peak reached.
// Launch-metadata frames are left out, as in the tree; names are shown as `names` asks, and
// kernels whose names differ only in template arguments stay apart.
// A profile without GPU kernels gets one line that says so.
absl::StatusOr<std::string> RenderTopKernels(const v1::Tree& tree, int limit, KernelNames names);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_TOP_KERNELS_H_
