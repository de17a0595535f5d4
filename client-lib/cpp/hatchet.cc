#include "client-lib/cpp/hatchet.h"

#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace protond::client {
namespace {

using Json = nlohmann::json;  // std::map objects: keys come out sorted, as Proton writes them

constexpr char kGpuTime[] = "time (ns)";
constexpr char kDeviceId[] = "device_id";

bool IsGpuNode(const v1::TreeNode& node) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() == kGpuTime) return true;
  }
  return false;
}

Json MetricValue(const v1::Metric& metric) {
  if (metric.value_case() == v1::Metric::kDoubleValue) return metric.double_value();
  return metric.int_value();
}

Json NodeMetrics(const v1::TreeNode& node) {
  Json metrics = Json::object();
  const bool gpu = IsGpuNode(node);
  for (const v1::Metric& metric : node.metrics()) {
    if (gpu && metric.name() == kDeviceId) {
      metrics[kDeviceId] = std::to_string(metric.int_value());
    } else {
      metrics[metric.name()] = MetricValue(metric);
    }
  }
  if (gpu) {
    metrics["count"] = node.count();
    metrics["device_type"] = "CUDA";
  }
  return metrics;
}

// Zero for every summed metric name in the tree: Proton's ROOT placeholders (readers sum the
// real values up themselves). Exclusive metrics and properties, such as cpu_time and the device
// id, have none (seen side by side with Triton 3.6's Proton: tests/gpu/compare_python_api.py).
Json RootMetrics(const v1::Tree& tree) {
  std::set<std::string> names;
  for (const v1::TreeNode& node : tree.nodes()) {
    if (IsGpuNode(node)) names.insert("count");
    for (const v1::Metric& metric : node.metrics()) {
      if (metric.aggregation() == v1::Metric::INCLUSIVE) names.insert(metric.name());
    }
  }
  Json metrics = Json::object();
  for (const std::string& name : names) metrics[name] = 0;
  return metrics;
}

Json Frame(const std::string& name) { return Json{{"name", name}, {"type", "function"}}; }

// Nodes come in pre-order with parents first (tree_query.h), so children can be attached by
// walking backwards: each node is complete before its parent takes it.
Json Nodes(const v1::Tree& tree) {
  const int count = tree.nodes_size();
  std::vector<Json> built(count);
  std::vector<std::vector<int>> children(count);
  std::vector<int> index_of_id;
  for (int i = 0; i < count; ++i) {
    const uint32_t id = tree.nodes(i).id();
    if (id >= index_of_id.size()) index_of_id.resize(id + 1, -1);
    index_of_id[id] = i;
  }
  for (int i = 1; i < count; ++i) {
    const uint32_t parent = tree.nodes(i).parent_id();
    if (parent < index_of_id.size() && index_of_id[parent] >= 0 && index_of_id[parent] < i) {
      children[index_of_id[parent]].push_back(i);
    }
  }
  for (int i = count - 1; i >= 0; --i) {
    const v1::TreeNode& node = tree.nodes(i);
    Json node_children = Json::array();
    for (int child : children[i]) node_children.push_back(std::move(built[child]));
    built[i] = Json{{"children", std::move(node_children)},
                    {"frame", Frame(node.name())},
                    {"metrics", i == 0 ? RootMetrics(tree) : NodeMetrics(node)}};
  }
  return count > 0 ? std::move(built[0])
                   : Json{{"children", Json::array()},
                          {"frame", Frame("ROOT")},
                          {"metrics", Json::object()}};
}

Json DeviceInfo(const v1::Tree& tree) {
  Json cuda = Json::object();
  for (const v1::Device& device : tree.devices()) {
    cuda[std::to_string(device.device_id())] = Json{
        {"arch", std::to_string(device.arch())},
        {"bus_width", device.bus_width_bits()},
        {"clock_rate", device.clock_rate_khz()},
        {"memory_clock_rate", device.memory_clock_rate_khz()},
        {"num_sms", device.num_sms()},
    };
  }
  return cuda.empty() ? Json::object() : Json{{"CUDA", std::move(cuda)}};
}

}  // namespace

std::string RenderHatchet(const v1::Tree& tree) {
  const Json document = Json::array({Nodes(tree), DeviceInfo(tree)});
  return "\n" + document.dump(4, ' ', /*ensure_ascii=*/true) + "\n";
}

}  // namespace protond::client
