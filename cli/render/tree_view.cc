#include "cli/render/tree_view.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

// The rows to print: each cell's text and each column's width.
struct View {
  const v1::Tree& tree;
  const TreeShape& shape;
  int depth;
  std::vector<std::vector<std::string>> cells;  // [column][node]
  std::vector<size_t> widths;
};

void AppendCells(const View& view, int node, std::string* out) {
  for (size_t c = 0; c < view.cells.size(); ++c) {
    const std::string& cell = view.cells[c][node];
    absl::StrAppend(out, std::string(view.widths[c] - cell.size(), ' '), cell, "  ");
  }
}

// hatchet's layout: a child's line starts with "├─ " ("└─ " for the last one), and the lines
// below it continue its parent's rail with "│  " ("   " below the last one).
void AppendSubtree(const View& view, int node, const std::string& glyphs,
                   const std::string& child_glyphs, std::string* out) {
  if (view.shape.depth[node] >= view.depth) return;
  AppendCells(view, node, out);
  absl::StrAppend(out, glyphs, view.tree.nodes(node).name(), "\n");
  const std::vector<int>& children = view.shape.children[node];
  for (size_t k = 0; k < children.size(); ++k) {
    const bool last = k + 1 == children.size();
    AppendSubtree(view, children[k], child_glyphs + (last ? "└─ " : "├─ "),
                  child_glyphs + (last ? "   " : "│  "), out);
  }
}

std::string HeaderLine(const std::vector<MetricColumn>& columns,
                       const std::vector<size_t>& widths) {
  std::vector<std::string> headers;
  for (size_t c = 0; c < columns.size(); ++c) {
    headers.push_back(absl::StrFormat("%*s", static_cast<int>(widths[c]), columns[c].header));
  }
  return absl::StrCat(absl::StrJoin(headers, "  "), "\n");
}

}  // namespace

absl::StatusOr<std::string> RenderTree(const v1::Tree& tree,
                                       const std::vector<MetricColumn>& columns, int depth) {
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(tree));
  std::vector<std::vector<MetricValue>> values;
  for (const MetricColumn& column : columns) values.push_back(ComputeColumn(tree, shape, column));
  return RenderTreeValues(tree, shape, columns, values, depth);
}

std::string RenderTreeValues(const v1::Tree& tree, const TreeShape& shape,
                             const std::vector<MetricColumn>& columns,
                             const std::vector<std::vector<MetricValue>>& values, int depth) {
  View view{tree, shape, depth, {}, {}};
  for (size_t c = 0; c < columns.size(); ++c) {
    std::vector<std::string>& cells = view.cells.emplace_back();
    size_t width = columns[c].header.size();
    for (const MetricValue& value : values[c]) {
      cells.push_back(value.Format());
      if (shape.depth[cells.size() - 1] < depth) width = std::max(width, cells.back().size());
    }
    view.widths.push_back(width);
  }
  std::string out = HeaderLine(columns, view.widths);
  if (tree.nodes_size() > 0) AppendSubtree(view, 0, "", "", &out);
  return out;
}

}  // namespace protond::cli
