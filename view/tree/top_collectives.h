// `protonctl top --collectives`: a profile's NCCL collectives by GPU time, from the names of its
// NCCL kernels (nccl_kernel_name.h), so any session has it, a tree session too. Which rank the
// others waited for needs each call's times: `protonctl job` on a trace session. Pure; no I/O.
#ifndef PROTOND_VIEW_TREE_TOP_COLLECTIVES_H_
#define PROTOND_VIEW_TREE_TOP_COLLECTIVES_H_

#include <string>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view {

// A table of the `limit` heaviest kinds of collective call (collective, datatype, algorithm and
// protocol as the kernel names say), summed over all call paths: GPU time, its share of all the
// profile's GPU time, calls, average time; then a line on what it cannot show yet (bytes and bus
// bandwidth come with NCCL's profiler plugin). A profile without NCCL kernels gets one line.
// Launch-metadata frames are left out, as in the tree.
// INVALID_ARGUMENT for a tree whose shape is broken, as RenderTopKernels.
absl::StatusOr<std::string> RenderTopCollectives(const v1::Tree& tree, int limit);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_TOP_COLLECTIVES_H_
