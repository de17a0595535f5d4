// `protonctl export --format csv`: a line per kernel name, the columns of `nsys stats`'
// cuda_gpu_kern_sum report. Pure functions; no I/O.
#ifndef PROTOND_VIEW_EXPORT_KERNEL_SUMMARY_H_
#define PROTOND_VIEW_EXPORT_KERNEL_SUMMARY_H_

#include <string>

#include "absl/status/statusor.h"
#include "protond.pb.h"
#include "view/tree/frame_names.h"

namespace protond::view {

// Header "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"
// then the kernels, most total time first. A kernel is a node with GPU time that is not a copy or
// a set ("[CUDA memcpy ...]", "[CUDA memset]"); nodes of one name under different scopes are one
// row, as in nsys (kernels whose names differ only in template arguments stay apart). Hidden
// frames are left out and names shown as `names` asks, as in the tree view. Time (%) is of all the
// kernels' time; StdDev is the sample standard deviation (0 for one launch).
//
// A tree keeps only each node's launch count and summed time, so without `trace` the Med, Min,
// Max and StdDev cells are empty. With the events of a trace session (`trace`, whose node ids are
// the tree's) every column comes from the launches' own durations.
absl::StatusOr<std::string> RenderKernelSummaryCsv(const v1::Tree& tree, KernelNames names,
                                                   const v1::Trace* trace = nullptr);

}  // namespace protond::view

#endif  // PROTOND_VIEW_EXPORT_KERNEL_SUMMARY_H_
