#include "view/json/profile_table_json.h"

#include <cmath>

namespace protond::view {
namespace {

nlohmann::json NumberOf(const MetricValue& value) {
  switch (value.kind) {
    case MetricValue::Kind::kBlank:
      return nullptr;
    case MetricValue::Kind::kInt:
      return value.i;
    case MetricValue::Kind::kDouble:
      if (!std::isfinite(value.d)) return nullptr;
      return value.d;
    case MetricValue::Kind::kVector:  // what the page sorts and draws by; the cell shows each
      return NumberOf(MetricValue::Double(value.AsDouble()));
    case MetricValue::Kind::kMismatch:
      return nullptr;
  }
  return nullptr;
}

nlohmann::json NodeJson(const ProfileTable& table, int node) {
  const TreeValues& shown = table.shown;
  nlohmann::json values = nlohmann::json::array();
  nlohmann::json text = nlohmann::json::array();
  for (const std::vector<MetricValue>& column : shown.values) {
    values.push_back(NumberOf(column[node]));
    text.push_back(column[node].Format());
  }
  const int parent = shown.shape.parent[node];
  return {{"id", node},
          {"parent", parent < 0 ? nlohmann::json(nullptr) : nlohmann::json(parent)},
          {"name", shown.tree.nodes(node).name()},
          {"full_name", table.full_names[node]},
          {"values", std::move(values)},
          {"text", std::move(text)}};
}

}  // namespace

nlohmann::json ProfileTableJson(const ProfileTable& table) {
  nlohmann::json columns = nlohmann::json::array();
  for (const MetricColumn& column : table.columns) columns.push_back(column.header);
  nlohmann::json nodes = nlohmann::json::array();
  for (int i = 0; i < table.shown.tree.nodes_size(); ++i) nodes.push_back(NodeJson(table, i));
  return {{"columns", std::move(columns)}, {"nodes", std::move(nodes)}, {"notes", table.notes}};
}

std::string DumpJson(const nlohmann::json& json) {
  return json.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

}  // namespace protond::view
