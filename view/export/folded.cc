#include "view/export/folded.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"

namespace protond::view {
namespace {

std::string FoldedName(std::string name) {
  for (char& c : name) {
    if (c == ';') c = ':';
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return name;
}

// Pre-order with an explicit stack, so that a tree's depth does not decide protonctl's.
void AppendStacks(const FlameGraph& graph, std::string* out) {
  std::string path;                // "ROOT;a;b": the frames from ROOT to the node visited
  std::vector<size_t> path_bytes;  // by depth: how much of `path` reaches that depth's frame
  std::vector<int> to_visit = {0};
  while (!to_visit.empty()) {
    const int node = to_visit.back();
    to_visit.pop_back();
    const size_t depth = graph.shape.depth[node];
    path.resize(depth == 0 ? 0 : path_bytes[depth - 1]);
    absl::StrAppend(&path, depth == 0 ? "" : ";", FoldedName(graph.names[node]));
    path_bytes.resize(depth + 1);
    path_bytes[depth] = path.size();
    const long long value = std::llround(graph.self[node]);
    if (value != 0) absl::StrAppend(out, path, " ", value, "\n");
    const std::vector<int>& children = graph.shape.children[node];
    to_visit.insert(to_visit.end(), children.rbegin(), children.rend());
  }
}

}  // namespace

std::string RenderFolded(const FlameGraph& graph) {
  std::string out;
  if (!graph.names.empty()) AppendStacks(graph, &out);
  return out;
}

}  // namespace protond::view
