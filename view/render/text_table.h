// Aligned text tables for protonctl's listings (sessions, devices). Pure functions; no I/O.
#ifndef PROTOND_VIEW_RENDER_TEXT_TABLE_H_
#define PROTOND_VIEW_RENDER_TEXT_TABLE_H_

#include <span>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace protond::view {

struct TableColumn {
  absl::string_view header;
  bool right_aligned;  // numbers; text is left-aligned
};

// A header line, then one line per row (one cell per column), columns as wide as their widest
// cell and two spaces apart; no line ends in spaces. Widths are terminal columns (DisplayWidth: a
// CJK character or an emoji takes two). Cells are printed as PrintableText: session names and
// command lines are not ours.
std::string RenderTextTable(std::span<const TableColumn> columns,
                            const std::vector<std::vector<std::string>>& rows);

// The columns' headers, for a view that shows the same table otherwise (the web page's JSON).
std::vector<std::string> ColumnHeaders(std::span<const TableColumn> columns);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_TEXT_TABLE_H_
