#include "tests/integration/tree_cells.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace protond::testing {
namespace {

// The cells of each line of `protonctl tree`'s text, by the headers' widths: the header line is
// each column's header right-aligned in its width, two spaces apart, and so are the cells.
std::vector<std::vector<std::string>> TextCells(const std::string& text,
                                                const std::vector<std::string>& columns) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  std::vector<std::pair<size_t, size_t>> spans;  // begin, width
  size_t begin = 0;
  for (const std::string& header : columns) {
    const size_t at = lines[0].find(header, begin);
    EXPECT_NE(at, std::string::npos) << header << " in " << lines[0];
    spans.emplace_back(begin, at + header.size() - begin);
    begin = at + header.size() + 2;
  }
  std::vector<std::vector<std::string>> cells;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (absl::StartsWith(lines[i], "note: ")) continue;
    std::vector<std::string>& row = cells.emplace_back();
    for (const auto& [start, width] : spans) {
      row.emplace_back(absl::StripAsciiWhitespace(lines[i].substr(start, width)));
    }
  }
  return cells;
}

// The JSON's nodes in the text's order: pre-order, children by index.
std::vector<int> PreOrder(const nlohmann::json& nodes) {
  std::vector<std::vector<int>> children(nodes.size());
  for (const nlohmann::json& node : nodes) {
    if (!node["parent"].is_null()) children[node["parent"].get<int>()].push_back(node["id"]);
  }
  std::vector<int> order, to_visit = {0};
  while (!to_visit.empty()) {
    const int node = to_visit.back();
    to_visit.pop_back();
    order.push_back(node);
    for (auto child = children[node].rbegin(); child != children[node].rend(); ++child) {
      to_visit.push_back(*child);
    }
  }
  return order;
}

}  // namespace

// Every node's text cells are the cells `protonctl tree` printed on its line, and its name ends
// that line.
void ExpectSameCells(const nlohmann::json& tree, const std::string& text) {
  const std::vector<std::string> columns = tree["columns"];
  const std::vector<std::vector<std::string>> cells = TextCells(text, columns);
  const std::vector<int> order = PreOrder(tree["nodes"]);
  ASSERT_EQ(cells.size(), order.size()) << text << tree.dump(1);
  std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  for (size_t i = 0; i < order.size(); ++i) {
    const nlohmann::json& node = tree["nodes"][order[i]];
    EXPECT_EQ(node["text"].get<std::vector<std::string>>(), cells[i]) << lines[i + 1];
    EXPECT_TRUE(absl::EndsWith(lines[i + 1], node["name"].get<std::string>())) << lines[i + 1];
  }
}

}  // namespace protond::testing
