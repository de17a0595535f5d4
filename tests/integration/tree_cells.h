// A tree answer of the page's API (/api/tree, /api/diff, /api/job: "columns" and "nodes") compared
// with the text `protonctl tree` printed for it, cell by cell.
#ifndef PROTOND_TESTS_INTEGRATION_TREE_CELLS_H_
#define PROTOND_TESTS_INTEGRATION_TREE_CELLS_H_

#include <string>

#include "nlohmann/json.hpp"

namespace protond::testing {

// Every node's text cells are the cells `protonctl tree` printed on its line (`text`: the header
// line, then the tree), and its name ends that line.
void ExpectSameCells(const nlohmann::json& tree, const std::string& text);

}  // namespace protond::testing

#endif  // PROTOND_TESTS_INTEGRATION_TREE_CELLS_H_
