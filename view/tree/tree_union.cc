#include "view/tree/tree_union.h"

namespace protond::view {

std::vector<int> TreeUnion::Add(const v1::Tree& tree, const TreeShape& shape) {
  std::vector<int> index(tree.nodes_size());
  for (int i = 0; i < tree.nodes_size(); ++i) {
    if (i == 0) {
      if (tree_.nodes_size() == 0) tree_.add_nodes()->set_name(tree.nodes(0).name());
      index[i] = 0;
    } else {
      index[i] = Find(index[shape.parent[i]], tree.nodes(i).name());
    }
  }
  return index;
}

int TreeUnion::Find(int parent, const std::string& name) {
  auto [it, added] = index_.try_emplace({parent, name}, tree_.nodes_size());
  if (added) {
    v1::TreeNode* node = tree_.add_nodes();
    node->set_id(it->second);
    node->set_parent_id(parent);
    node->set_name(name);
  }
  return it->second;
}

}  // namespace protond::view
