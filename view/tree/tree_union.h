// The union of several call trees' frames: the same names from ROOT down are one frame. What
// --diff (tree_diff.h) and the job view (job_tree.h) line their trees up with. Pure; no I/O.
#ifndef PROTOND_VIEW_TREE_TREE_UNION_H_
#define PROTOND_VIEW_TREE_TREE_UNION_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "protond.pb.h"
#include "view/render/tree_shape.h"

namespace protond::view {

// Node i of the union has id i; the first tree's ROOT is everyone's. Sibling frames with the same
// name in one tree both map to the first.
class TreeUnion {
 public:
  // Where each of `tree`'s nodes lands in the union, by index.
  std::vector<int> Add(const v1::Tree& tree, const TreeShape& shape);

  v1::Tree& tree() { return tree_; }

 private:
  // The union node for a frame named `name` under union node `parent`, made if missing.
  int Find(int parent, const std::string& name);

  v1::Tree tree_;
  absl::flat_hash_map<std::pair<int, std::string>, int> index_;
};

}  // namespace protond::view

#endif  // PROTOND_VIEW_TREE_TREE_UNION_H_
