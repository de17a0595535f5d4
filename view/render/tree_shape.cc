#include "view/render/tree_shape.h"

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace protond::view {

absl::StatusOr<TreeShape> CheckTreeShape(const v1::Tree& tree) {
  const int n = tree.nodes_size();
  TreeShape shape{std::vector<int>(n, -1), std::vector<int>(n, 0),
                  std::vector<std::vector<int>>(n)};
  absl::flat_hash_map<uint32_t, int> index_of_id;
  for (int i = 0; i < n; ++i) {
    const v1::TreeNode& node = tree.nodes(i);
    if (i > 0) {
      auto parent = index_of_id.find(node.parent_id());
      if (parent == index_of_id.end()) {
        return absl::InvalidArgumentError(
            absl::StrFormat("tree node %u (%s) names parent %u, which does not precede it",
                            node.id(), node.name(), node.parent_id()));
      }
      shape.parent[i] = parent->second;
      shape.depth[i] = shape.depth[parent->second] + 1;
      shape.children[parent->second].push_back(i);
    }
    if (!index_of_id.emplace(node.id(), i).second) {
      return absl::InvalidArgumentError(
          absl::StrFormat("tree node id %u appears more than once", node.id()));
    }
  }
  return shape;
}

}  // namespace protond::view
