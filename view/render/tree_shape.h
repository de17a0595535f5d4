// The parent and child links of a v1::Tree, checked once: every component that walks a tree by
// node index (metric values, the tree view, the viewer's filters) starts from a TreeShape.
#ifndef PROTOND_VIEW_RENDER_TREE_SHAPE_H_
#define PROTOND_VIEW_RENDER_TREE_SHAPE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view {

// By node index; ROOT is index 0 with parent -1 and depth 0. Parents precede their children.
struct TreeShape {
  std::vector<int> parent;
  std::vector<int> depth;
  std::vector<std::vector<int>> children;  // in message order
};

// The tree must start with ROOT and name, for every other node, a parent that precedes it, and
// no id twice; otherwise InvalidArgumentError naming the node.
absl::StatusOr<TreeShape> CheckTreeShape(const v1::Tree& tree);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_TREE_SHAPE_H_
