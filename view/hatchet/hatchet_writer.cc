#include "view/hatchet/hatchet_writer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace protond::view {
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

// Proton's layout indents each level of the JSON by 4 spaces, so a node at depth d starts each of
// its lines with 8 d spaces: a deep tree would take bytes in the square of its depth (10,000
// levels took 5.6 GB). Trees deeper than this are written compact instead: no spaces, no line
// breaks.
constexpr int kMaxIndentedDepth = 64;

class JsonLayout {
 public:
  explicit JsonLayout(bool indented) : indented_(indented) {}

  // What starts a line at `level`: a line break and its indentation, or nothing.
  std::string Break(int level) const {
    if (!indented_) return "";
    // Not "\n" + std::string(...): GCC 12 at -O3 warns of a memcpy overlap there (-Wrestrict,
    // a false positive).
    std::string line(1 + 4 * static_cast<size_t>(level), ' ');
    line[0] = '\n';
    return line;
  }
  std::string Key(const char* name) const {
    return std::string("\"") + name + (indented_ ? "\": " : "\":");
  }
  // A small value (a frame, metrics) as nlohmann writes it, its lines indented from `level`.
  std::string Dump(const Json& value, int level) const {
    const std::string text = value.dump(indented_ ? 4 : -1, ' ', /*ensure_ascii=*/true);
    std::string out;
    for (char c : text) {
      if (c == '\n') {
        out += Break(level);
      } else {
        out += c;
      }
    }
    return out;
  }

 private:
  bool indented_;
};

// The children of each node, by index; a node whose parent is missing or does not precede it is
// left out, with its descendants.
struct Shape {
  std::vector<std::vector<int>> children;
  int depth = 0;  // of the deepest node kept
};

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

// A node's keys after its children: "frame", then "metrics" (sorted, as Proton writes them).
std::string NodeEnd(const v1::Tree& tree, int node, int level, const JsonLayout& layout) {
  const v1::TreeNode& proto = tree.nodes(node);
  return absl::StrCat("],", layout.Break(level + 1), layout.Key("frame"),
                      layout.Dump(Frame(proto.name()), level + 1), ",", layout.Break(level + 1),
                      layout.Key("metrics"),
                      layout.Dump(node == 0 ? RootMetrics(tree) : NodeMetrics(proto), level + 1),
                      layout.Break(level), "}");
}

// The tree from ROOT, in pre-order with an explicit stack: a tree's depth must not decide the
// writer's stack depth. ROOT is at `level` 1, inside the top-level array; a node's children are
// two levels deeper (inside its object, then its "children" array).
void AppendNodes(const v1::Tree& tree, const Shape& shape, const JsonLayout& layout,
                 std::string* out) {
  struct Open {
    int node;
    int level;
    size_t children_written;
  };
  auto open = [&](int node, int level) {
    absl::StrAppend(out, "{", layout.Break(level + 1), layout.Key("children"), "[");
    return Open{node, level, 0};
  };
  std::vector<Open> stack = {open(0, 1)};
  while (!stack.empty()) {
    Open& top = stack.back();
    const std::vector<int>& children = shape.children[top.node];
    if (top.children_written < children.size()) {
      absl::StrAppend(out, top.children_written == 0 ? "" : ",", layout.Break(top.level + 2));
      const int child = children[top.children_written++];
      stack.push_back(open(child, top.level + 2));  // `top` is not used after this
      continue;
    }
    if (!children.empty()) absl::StrAppend(out, layout.Break(top.level + 1));
    absl::StrAppend(out, NodeEnd(tree, top.node, top.level, layout));
    stack.pop_back();
  }
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
  v1::Tree root_alone;  // what an empty tree is written as
  if (tree.nodes_size() == 0) root_alone.add_nodes()->set_name("ROOT");
  const v1::Tree& written = tree.nodes_size() > 0 ? tree : root_alone;
  const Shape shape = ShapeOf(written);
  const JsonLayout layout(shape.depth <= kMaxIndentedDepth);
  std::string out = "\n[" + layout.Break(1);
  AppendNodes(written, shape, layout, &out);
  absl::StrAppend(&out, ",", layout.Break(1), layout.Dump(DeviceInfo(written), 1), layout.Break(0),
                  "]\n");
  return out;
}

}  // namespace protond::view
