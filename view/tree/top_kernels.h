// `protonctl top`: the GPU work that took the most time, by kernel name over all call paths, with
// achieved rates and a roofline verdict against the device's peaks (device_peaks.h), like
// `nsys stats`' kernel summary. Pure functions; no I/O.
#ifndef PROTOND_VIEW_TREE_TOP_KERNELS_H_
#define PROTOND_VIEW_TREE_TOP_KERNELS_H_

#include <cstdint>
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
