// What a Hatchet profile holds, apart from how it is encoded: each node's frame and metrics, ROOT's
// placeholders, device_info, and the tree's shape. Shared by the two encodings Proton writes,
// Hatchet JSON (hatchet_writer.cc) and MessagePack (hatchet_msgpack_writer.cc), so that both
// carry the same content.
#ifndef PROTOND_VIEW_HATCHET_INTERNAL_HATCHET_CONTENT_H_
#define PROTOND_VIEW_HATCHET_INTERNAL_HATCHET_CONTENT_H_

#include <nlohmann/json.hpp>
#include <vector>

#include "protond.pb.h"

namespace protond::view::hatchet_content {

using Json = nlohmann::json;  // std::map objects: keys come out sorted, as Proton writes them

// {"name": name, "type": "function"}
Json Frame(const std::string& name);
// A node's metrics as Proton writes them: GPU nodes (those with "time (ns)") carry "count",
// "device_id" (a string) and "device_type" "CUDA" beside their other metrics.
Json NodeMetrics(const v1::TreeNode& node);
// ROOT's: zero for every summed metric name in the tree.
Json RootMetrics(const v1::Tree& tree);
// {"CUDA": {"0": {"arch", "bus_width", "clock_rate", "memory_clock_rate", "num_sms"}}}, or {}.
Json DeviceInfo(const v1::Tree& tree);

// The children of each node, by index; a node whose parent is missing or does not precede it is
// left out, with its descendants.
struct Shape {
  std::vector<std::vector<int>> children;
  int depth = 0;  // of the deepest node kept
};
Shape ShapeOf(const v1::Tree& tree);

// `tree`, or, when it has no nodes, a tree of ROOT alone in `root_alone` (what an empty tree is
// written as).
const v1::Tree& WrittenTree(const v1::Tree& tree, v1::Tree* root_alone);

}  // namespace protond::view::hatchet_content

#endif  // PROTOND_VIEW_HATCHET_INTERNAL_HATCHET_CONTENT_H_
