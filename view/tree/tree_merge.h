// Several call trees as one: the frames of all of them (tree_union.h) with their counts, times
// and metrics added up. What `protonctl tree --since` shows for a range of always-on windows
// (docs/always-on.md), each window being a tree of its own. Pure; no I/O.
#ifndef PROTOND_VIEW_TREE_TREE_MERGE_H_
#define PROTOND_VIEW_TREE_TREE_MERGE_H_

#include <span>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view {

// The union of `trees`' frames, each node's values combined over the trees that have it:
// counts, durations and summed metrics ("(exc)" ones too) added, the duration's min and max over
// the nodes that ran, a "(pty)" metric the last tree's value, a vector metric element by element.
// A metric that is an integer in one tree and a real number in another is added as a real number;
// vectors of different types or lengths are an InvalidArgumentError naming the metric and frame.
// Devices are listed once per (process, device), used if any tree used it; notes once each. No
// trees: an empty ROOT. InvalidArgumentError names the tree (by position) whose shape is bad.
absl::StatusOr<v1::Tree> MergeTrees(std::span<const v1::Tree> trees);

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_TREE_MERGE_H_
