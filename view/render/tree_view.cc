#include "view/render/tree_view.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "common/text/printable_text.h"
#include "view/render/colour_bands.h"

namespace protond::view {
namespace {

// The rows to print: each cell's text and each column's width.
struct View {
  const v1::Tree& tree;
  const TreeShape& shape;
  int depth;
  std::vector<std::vector<std::string>> cells;  // [column][node]
  std::vector<size_t> widths;
  std::optional<ColourBands> colour;  // the first column's, when it is coloured
  const std::vector<MetricValue>* first_values = nullptr;
};

void AppendCells(const View& view, int node, std::string* out) {
  for (size_t c = 0; c < view.cells.size(); ++c) {
    const std::string& cell = view.cells[c][node];
    absl::StrAppend(out, std::string(view.widths[c] - cell.size(), ' '));
    if (c == 0 && view.colour.has_value() && !cell.empty()) {
      const double value = (*view.first_values)[node].AsDouble();
      absl::StrAppend(out, BandColour(*view.colour, value), cell, kColourEnd, "  ");
    } else {
      absl::StrAppend(out, cell, "  ");
    }
  }
}

// hatchet's layout: a child's line starts with "├─ " ("└─ " for the last one), and the lines
// below it continue its parent's rail with "│  " ("   " below the last one). Pre-order with an
// explicit stack, so that a tree's depth does not decide protonctl's (or protond's) stack depth.
void AppendSubtrees(const View& view, std::string* out) {
  struct Visit {
    int node;
    bool last;  // among its parent's children
  };
  std::string rails;                // the rails of the visited node's ancestors
  std::vector<size_t> rails_bytes;  // by depth: how much of `rails` a node's children start with
  std::vector<Visit> to_visit = {{0, true}};
  while (!to_visit.empty()) {
    const Visit visit = to_visit.back();
    to_visit.pop_back();
    const int depth = view.shape.depth[visit.node];
    if (depth >= view.depth) continue;
    rails.resize(depth == 0 ? 0 : rails_bytes[depth - 1]);
    AppendCells(view, visit.node, out);
    absl::StrAppend(out, rails, depth == 0 ? "" : (visit.last ? "└─ " : "├─ "),
                    text::PrintableText(view.tree.nodes(visit.node).name()), "\n");
    if (depth > 0) rails += visit.last ? "   " : "│  ";
    rails_bytes.resize(depth + 1);
    rails_bytes[depth] = rails.size();
    const std::vector<int>& children = view.shape.children[visit.node];
    for (size_t k = children.size(); k-- > 0;) {
      to_visit.push_back({children[k], k + 1 == children.size()});
    }
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
  return RenderTreeValues(tree, shape, columns, values, depth, /*colour=*/false);
}

std::string RenderTreeValues(const v1::Tree& tree, const TreeShape& shape,
                             const std::vector<MetricColumn>& columns,
                             const std::vector<std::vector<MetricValue>>& values, int depth,
                             bool colour) {
  View view{tree, shape, depth, {}, {}, std::nullopt, nullptr};
  for (size_t c = 0; c < columns.size(); ++c) {
    std::vector<std::string>& cells = view.cells.emplace_back();
    size_t width = columns[c].header.size();
    for (const MetricValue& value : values[c]) {
      cells.push_back(value.Format());
      if (shape.depth[cells.size() - 1] < depth) width = std::max(width, cells.back().size());
    }
    view.widths.push_back(width);
  }
  if (colour && !columns.empty()) {
    std::vector<bool> shown(shape.depth.size());
    for (size_t i = 0; i < shown.size(); ++i) shown[i] = shape.depth[i] < depth;
    view.colour = BandsOf(values[0], shown);
    view.first_values = &values[0];
  }
  std::string out = HeaderLine(columns, view.widths);
  if (tree.nodes_size() > 0) AppendSubtrees(view, &out);
  if (view.colour.has_value()) absl::StrAppend(&out, RenderLegend(columns[0].header, *view.colour));
  return out;
}

}  // namespace protond::view
