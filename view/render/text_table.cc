#include "view/render/text_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/text/printable_text.h"
#include "view/render/display_width.h"

namespace protond::view {
namespace {

using Row = std::vector<std::string>;

void AppendRow(std::span<const TableColumn> columns, const Row& row,
               const std::vector<size_t>& widths, std::string* out) {
  for (size_t c = 0; c < columns.size(); ++c) {
    const std::string padding(widths[c] - DisplayWidth(row[c]), ' ');
    const bool last = c + 1 == columns.size();
    if (columns[c].right_aligned) {
      absl::StrAppend(out, padding, row[c]);
    } else {
      absl::StrAppend(out, row[c], last ? "" : padding);
    }
    absl::StrAppend(out, last ? "\n" : "  ");
  }
}

}  // namespace

std::string RenderTextTable(std::span<const TableColumn> columns,
                            const std::vector<Row>& unescaped_rows) {
  std::vector<Row> rows = unescaped_rows;
  for (Row& row : rows) {
    for (std::string& cell : row) cell = text::PrintableText(cell);
  }
  Row header;
  std::vector<size_t> widths;
  for (const TableColumn& column : columns) {
    header.emplace_back(column.header);
    widths.push_back(DisplayWidth(column.header));
  }
  for (const Row& row : rows) {
    for (size_t c = 0; c < columns.size(); ++c)
      widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  std::string out;
  AppendRow(columns, header, widths, &out);
  for (const Row& row : rows) AppendRow(columns, row, widths, &out);
  return out;
}

std::vector<std::string> ColumnHeaders(std::span<const TableColumn> columns) {
  std::vector<std::string> headers;
  for (const TableColumn& column : columns) headers.emplace_back(column.header);
  return headers;
}

}  // namespace protond::view
