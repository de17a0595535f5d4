// Fuzz-only: what the Hatchet readers' fuzzers require of every tree a reader answers, so that
// the renderers can walk it: node ids in order from 0, every node's parent before it, and no node
// deeper than kMaxTreeDepth. A tree that breaks one ends the fuzzer with a trap.
#ifndef PROTOND_VIEW_HATCHET_INTERNAL_WALKABLE_TREE_H_
#define PROTOND_VIEW_HATCHET_INTERNAL_WALKABLE_TREE_H_

#include <cstdint>
#include <vector>

#include "common/tree/tree_depth.h"
#include "protond.pb.h"

namespace protond::view::hatchet_fuzz {

inline void TrapUnlessWalkable(const v1::Tree& tree) {
  std::vector<int> depth(tree.nodes_size(), 0);
  for (int i = 0; i < tree.nodes_size(); ++i) {
    const v1::TreeNode& node = tree.nodes(i);
    if (node.id() != static_cast<uint64_t>(i)) __builtin_trap();
    if (i == 0) continue;
    if (node.parent_id() >= node.id()) __builtin_trap();
    depth[i] = depth[node.parent_id()] + 1;
    if (depth[i] > kMaxTreeDepth) __builtin_trap();
  }
}

}  // namespace protond::view::hatchet_fuzz

#endif  // PROTOND_VIEW_HATCHET_INTERNAL_WALKABLE_TREE_H_
