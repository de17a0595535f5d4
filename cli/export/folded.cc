#include "cli/export/folded.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"

namespace protond::cli {
namespace {

std::string FoldedName(std::string name) {
  for (char& c : name) {
    if (c == ';') c = ':';
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return name;
}

void AppendStacks(const FlameGraph& graph, int node, const std::string& parent_stack,
                  std::string* out) {
  const std::string stack = node == 0
                                ? FoldedName(graph.names[0])
                                : absl::StrCat(parent_stack, ";", FoldedName(graph.names[node]));
  const long long value = std::llround(graph.self[node]);
  if (value != 0) absl::StrAppend(out, stack, " ", value, "\n");
  for (int child : graph.shape.children[node]) AppendStacks(graph, child, stack, out);
}

}  // namespace

std::string RenderFolded(const FlameGraph& graph) {
  std::string out;
  if (!graph.names.empty()) AppendStacks(graph, 0, "", &out);
  return out;
}

}  // namespace protond::cli
