// Parses arbitrary bytes as a `.hatchet` file, the way protonctl reads one it is given: the reader
// must answer a tree or an error, never crash, read out of bounds or recurse without limit. A
// tree it answers must be one the renderers can walk: every node's parent comes before it, and no
// node is deeper than kMaxTreeDepth.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/tree/tree_depth.h"
#include "view/hatchet/hatchet_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<protond::v1::Tree> tree = protond::view::ParseHatchet(json);
  if (!tree.ok()) return 0;
  std::vector<int> depth(tree->nodes_size(), 0);
  for (int i = 0; i < tree->nodes_size(); ++i) {
    const protond::v1::TreeNode& node = tree->nodes(i);
    if (node.id() != static_cast<uint64_t>(i)) __builtin_trap();
    if (i == 0) continue;
    if (node.parent_id() >= node.id()) __builtin_trap();
    depth[i] = depth[node.parent_id()] + 1;
    if (depth[i] > protond::kMaxTreeDepth) __builtin_trap();
  }
  return 0;
}
