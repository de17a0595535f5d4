#include "view/hatchet/internal/hatchet_content.h"

#include <algorithm>
#include <cstdint>
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

// A vector metric is a list of its elements under its name, as Proton writes one.
Json MetricValue(const v1::Metric& metric) {
  switch (metric.value_case()) {
    case v1::Metric::kDoubleValue:
      return metric.double_value();
    case v1::Metric::kIntVector:
      return Json(std::vector<int64_t>(metric.int_vector().values().begin(),
                                       metric.int_vector().values().end()));
    case v1::Metric::kDoubleVector:
      return Json(std::vector<double>(metric.double_vector().values().begin(),
                                      metric.double_vector().values().end()));
    default:
      return metric.int_value();
  }
}

// Zero in the metric's shape: 0, or a vector metric's length of zeros.
Json Zero(const v1::Metric& metric) {
  if (metric.value_case() == v1::Metric::kIntVector) {
    return Json(std::vector<int64_t>(metric.int_vector().values_size(), 0));
  }
  if (metric.value_case() == v1::Metric::kDoubleVector) {
    return Json(std::vector<int64_t>(metric.double_vector().values_size(), 0));
  }
  return 0;
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
// Proton: tests/gpu/compare_python_api.py). A vector metric's placeholder is a vector of zeros,
// so that the name keeps one type.
Json RootMetrics(const v1::Tree& tree) {
  Json metrics = Json::object();
  for (const v1::TreeNode& node : tree.nodes()) {
    if (IsGpuNode(node)) metrics["count"] = 0;
    for (const v1::Metric& metric : node.metrics()) {
      if (metric.aggregation() == v1::Metric::INCLUSIVE && !metrics.contains(metric.name())) {
        metrics[metric.name()] = Zero(metric);
      }
    }
  }
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
