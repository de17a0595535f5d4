#include "view/hatchet/internal/hatchet_content.h"

#include <algorithm>
#include <set>
#include <string>

namespace protond::view::hatchet_content {
namespace {

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

}  // namespace

Json Frame(const std::string& name) { return Json{{"name", name}, {"type", "function"}}; }

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

// Proton's ROOT placeholders (readers sum the real values up themselves). Exclusive metrics and
// properties, such as cpu_time and the device id, have none (seen side by side with Triton 3.6's
// Proton: tests/gpu/compare_python_api.py).
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

Shape ShapeOf(const v1::Tree& tree) {
  const int count = tree.nodes_size();
  Shape shape{std::vector<std::vector<int>>(count)};
  std::vector<int> index_of_id;
  std::vector<int> depth(count, -1);  // -1: left out
  if (count > 0) depth[0] = 0;
  for (int i = 0; i < count; ++i) {
    const uint32_t id = tree.nodes(i).id();
    if (id >= index_of_id.size()) index_of_id.resize(id + 1, -1);
    index_of_id[id] = i;
  }
  for (int i = 1; i < count; ++i) {
    const uint32_t parent_id = tree.nodes(i).parent_id();
    const int parent = parent_id < index_of_id.size() ? index_of_id[parent_id] : -1;
    if (parent < 0 || parent >= i || depth[parent] < 0) continue;
    shape.children[parent].push_back(i);
    depth[i] = depth[parent] + 1;
    shape.depth = std::max(shape.depth, depth[i]);
  }
  return shape;
}

const v1::Tree& WrittenTree(const v1::Tree& tree, v1::Tree* root_alone) {
  if (tree.nodes_size() > 0) return tree;
  root_alone->Clear();
  root_alone->add_nodes()->set_name("ROOT");
  return *root_alone;
}

}  // namespace protond::view::hatchet_content
