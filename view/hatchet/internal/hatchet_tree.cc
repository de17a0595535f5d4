#include "view/hatchet/internal/hatchet_tree.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "common/tree/tree_depth.h"

namespace protond::view::hatchet_tree {

using Json = nlohmann::json;

namespace {

constexpr char kCount[] = "count";
constexpr char kDeviceId[] = "device_id";
constexpr char kDeviceType[] = "device_type";

// Where a node is in the file: its parent's index and its own among the parent's children.
struct Place {
  uint32_t parent;
  uint32_t child_index;
};

// A JSON pointer into the file, spelled out only when an error names it: a node's pointer is as
// long as its depth, and spelling out every node's would cost the square of the depth.
class JsonPointer {
 public:
  explicit JsonPointer(std::string text) : suffix_(std::move(text)) {}
  // The node at `node` of `places` (which outlives the pointer); ROOT is "/0".
  JsonPointer(const std::vector<Place>* places, uint32_t node) : places_(places), node_(node) {}

  JsonPointer Append(std::string_view part) const {
    JsonPointer longer = *this;
    longer.suffix_.append(part);
    return longer;
  }

  std::string Text() const {
    if (places_ == nullptr) return suffix_;
    std::vector<uint32_t> child_indices;
    for (uint32_t node = node_; node != 0; node = (*places_)[node].parent) {
      child_indices.push_back((*places_)[node].child_index);
    }
    std::string text = "/0";
    for (auto it = child_indices.rbegin(); it != child_indices.rend(); ++it) {
      absl::StrAppend(&text, "/children/", *it);
    }
    return text + suffix_;
  }

 private:
  const std::vector<Place>* places_ = nullptr;
  uint32_t node_ = 0;
  std::string suffix_;
};

absl::Status Invalid(const JsonPointer& pointer, absl::string_view what) {
  const std::string text = pointer.Text();
  return absl::InvalidArgumentError(absl::StrCat(text.empty() ? "/" : text, ": ", what));
}

// A value as an error shows it: a number or string as JSON, an array or object by its type
// alone, since printing one would recurse as deep as the file nests it.
std::string Describe(const Json& value) {
  if (value.is_structured()) return absl::StrCat("an ", value.type_name());
  return value.dump();
}

// Integers stay integers (an unsigned one must fit int64, Metric's type); floats stay floats;
// null is a NaN.
absl::Status SetNumber(const Json& value, const JsonPointer& pointer, v1::Metric* metric) {
  if (value.is_number_float()) {
    metric->set_double_value(value.get<double>());
  } else if (value.is_number_unsigned()) {
    const uint64_t v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Invalid(pointer, absl::StrCat("value ", v, " does not fit a 64-bit signed integer"));
    }
    metric->set_int_value(static_cast<int64_t>(v));
  } else if (value.is_number_integer()) {
    metric->set_int_value(value.get<int64_t>());
  } else if (value.is_null()) {
    // JSON has no NaN or infinity: nlohmann, and so Proton's writer and ours, write them as null.
    metric->set_double_value(std::numeric_limits<double>::quiet_NaN());
  } else {
    return Invalid(pointer, absl::StrCat("a metric must be a number or a list of numbers, not ",
                                         value.type_name()));
  }
  return absl::OkStatus();
}

// A vector metric, as Proton writes a list or tensor value: a list of numbers, integers unless
// one is a float (or null, a NaN).
absl::Status SetVector(const Json& list, const JsonPointer& pointer, v1::Metric* metric) {
  bool floats = false;
  for (size_t i = 0; i < list.size(); ++i) {
    const JsonPointer at = pointer.Append(absl::StrCat("/", i));
    if (list[i].is_array() || list[i].is_object()) {
      return Invalid(at, absl::StrCat("a vector metric's element must be a number, not ",
                                      list[i].type_name()));
    }
    v1::Metric element;
    RETURN_IF_ERROR(SetNumber(list[i], at, &element));
    floats |= element.value_case() == v1::Metric::kDoubleValue;
  }
  for (const Json& value : list) {
    if (floats) {
      metric->mutable_double_vector()->add_values(
          value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>());
    } else {
      metric->mutable_int_vector()->add_values(value.get<int64_t>());
    }
  }
  if (list.empty()) metric->mutable_int_vector();
  return absl::OkStatus();
}

bool IsZero(const v1::Metric& metric) {
  auto zero = [](auto value) { return value == 0; };
  switch (metric.value_case()) {
    case v1::Metric::kIntVector:
      return std::all_of(metric.int_vector().values().begin(), metric.int_vector().values().end(),
                         zero);
    case v1::Metric::kDoubleVector:
      return std::all_of(metric.double_vector().values().begin(),
                         metric.double_vector().values().end(), zero);
    default:
      return metric.int_value() == 0 && metric.double_value() == 0;
  }
}

// An integer >= 0, however it was encoded: JSON text gives nlohmann an unsigned number, but a
// MessagePack writer may encode a non-negative one as a signed type (int8 to int64).
std::optional<uint64_t> NonNegativeInteger(const Json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer() && value.get<int64_t>() >= 0) {
    return static_cast<uint64_t>(value.get<int64_t>());
  }
  return std::nullopt;
}

absl::StatusOr<uint32_t> ParseDeviceId(const Json& value, const JsonPointer& pointer) {
  uint32_t id;
  const std::optional<uint64_t> number = NonNegativeInteger(value);
  if (number.has_value() && *number <= UINT32_MAX) return static_cast<uint32_t>(*number);
  if (value.is_string() && absl::SimpleAtoi(value.get<std::string>(), &id)) return id;
  return Invalid(pointer, absl::StrCat("a device id must be a number or a string of digits, not ",
                                       Describe(value)));
}

// The metric names ROOT's placeholders list: those Proton sums. Empty: sum every metric.
using SummedNames = absl::flat_hash_set<std::string>;

v1::Metric::Aggregation AggregationOf(const std::string& name, const SummedNames& summed) {
  if (name == kDeviceId) return v1::Metric::PROPERTY;
  if (summed.empty() || summed.contains(name)) return v1::Metric::INCLUSIVE;
  return v1::Metric::EXCLUSIVE;
}

absl::Status AddMetric(const std::string& name, const Json& value, const JsonPointer& pointer,
                       const SummedNames& summed, v1::TreeNode* node) {
  if (name == kDeviceType) return absl::OkStatus();
  if (name == kCount) {
    const std::optional<uint64_t> count = NonNegativeInteger(value);
    if (!count.has_value()) {
      return Invalid(pointer, absl::StrCat("count must be an integer >= 0, not ", Describe(value)));
    }
    node->set_count(*count);
    return absl::OkStatus();
  }
  v1::Metric metric;
  metric.set_name(name);
  metric.set_aggregation(AggregationOf(name, summed));
  if (name == kDeviceId) {
    ASSIGN_OR_RETURN(const uint32_t id, ParseDeviceId(value, pointer));
    metric.set_int_value(id);
  } else if (value.is_array()) {
    RETURN_IF_ERROR(SetVector(value, pointer, &metric));
  } else {
    RETURN_IF_ERROR(SetNumber(value, pointer, &metric));
  }
  // Proton's ROOT holds zeros that only name the metrics; readers sum the real values.
  const bool placeholder = node->id() == 0 && IsZero(metric);
  if (!placeholder) *node->add_metrics() = std::move(metric);
  return absl::OkStatus();
}

const Json* FindMember(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

absl::StatusOr<std::string> FrameName(const Json& node, const JsonPointer& pointer) {
  const Json* frame = FindMember(node, "frame");
  if (frame == nullptr || !frame->is_object()) return Invalid(pointer, "a node needs a \"frame\"");
  const Json* name = FindMember(*frame, "name");
  if (name == nullptr || !name->is_string()) {
    return Invalid(pointer.Append("/frame"), "a frame needs a \"name\" string");
  }
  return name->get<std::string>();
}

// One node's frame and metrics; its children are the caller's to walk.
absl::Status ConvertNode(const Json& json, const JsonPointer& pointer, const SummedNames& summed,
                         v1::TreeNode* node) {
  if (!json.is_object()) {
    return Invalid(pointer, absl::StrCat("a node must be an object, not ", json.type_name()));
  }
  ASSIGN_OR_RETURN(*node->mutable_name(), FrameName(json, pointer));
  const Json* metrics = FindMember(json, "metrics");
  if (metrics == nullptr) return absl::OkStatus();
  if (!metrics->is_object()) {
    return Invalid(pointer.Append("/metrics"), "\"metrics\" must be an object");
  }
  for (const auto& [name, value] : metrics->items()) {
    RETURN_IF_ERROR(
        AddMetric(name, value, pointer.Append(absl::StrCat("/metrics/", name)), summed, node));
  }
  return absl::OkStatus();
}

absl::StatusOr<const Json*> Children(const Json& node, const JsonPointer& pointer) {
  const Json* children = FindMember(node, "children");
  if (children != nullptr && !children->is_array()) {
    return Invalid(pointer.Append("/children"), "\"children\" must be an array");
  }
  return children;
}

SummedNames RootMetricNames(const Json& root) {
  SummedNames summed;
  const Json* metrics = root.is_object() ? FindMember(root, "metrics") : nullptr;
  if (metrics == nullptr || !metrics->is_object()) return summed;
  for (const auto& [name, value] : metrics->items()) summed.insert(name);
  return summed;
}

// Pre-order with an explicit stack: a file's depth must not decide the reader's stack depth.
absl::Status ConvertNodes(const Json& root, v1::Tree* tree) {
  struct Pending {
    const Json* json;
    Place place;
    int depth;
  };
  const SummedNames summed = RootMetricNames(root);
  std::vector<Place> places;  // by node id
  std::vector<Pending> stack = {{&root, {0, 0}, 0}};
  while (!stack.empty()) {
    const Pending pending = stack.back();
    stack.pop_back();
    if (pending.depth > kMaxTreeDepth) {
      return absl::InvalidArgumentError(
          absl::StrCat("the tree goes deeper than ", kMaxTreeDepth,
                       " levels below ROOT, the most protonctl reads"));
    }
    v1::TreeNode* node = tree->add_nodes();
    node->set_id(static_cast<uint32_t>(tree->nodes_size() - 1));
    node->set_parent_id(pending.place.parent);
    places.push_back(pending.place);
    const JsonPointer pointer(&places, node->id());
    RETURN_IF_ERROR(ConvertNode(*pending.json, pointer, summed, node));
    ASSIGN_OR_RETURN(const Json* children, Children(*pending.json, pointer));
    if (children == nullptr) continue;
    for (size_t i = children->size(); i-- > 0;) {
      stack.push_back({&(*children)[i], {node->id(), static_cast<uint32_t>(i)}, pending.depth + 1});
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> DeviceField(const Json& device, const char* key,
                                     const JsonPointer& pointer) {
  const Json* value = FindMember(device, key);
  if (value == nullptr) return 0;
  uint32_t number;
  const std::optional<uint64_t> integer = NonNegativeInteger(*value);
  if (integer.has_value() && *integer <= UINT32_MAX) return static_cast<uint32_t>(*integer);
  // Proton writes arch as a string ("90").
  if (value->is_string() && absl::SimpleAtoi(value->get<std::string>(), &number)) return number;
  return Invalid(pointer.Append(absl::StrCat("/", key)),
                 absl::StrCat("must be an integer >= 0, not ", Describe(*value)));
}

absl::Status ConvertDevice(const Json& json, const JsonPointer& pointer, v1::Device* device) {
  if (!json.is_object()) return Invalid(pointer, "a device must be an object");
  ASSIGN_OR_RETURN(const uint32_t arch, DeviceField(json, "arch", pointer));
  ASSIGN_OR_RETURN(const uint32_t num_sms, DeviceField(json, "num_sms", pointer));
  ASSIGN_OR_RETURN(const uint32_t clock, DeviceField(json, "clock_rate", pointer));
  ASSIGN_OR_RETURN(const uint32_t memory_clock, DeviceField(json, "memory_clock_rate", pointer));
  ASSIGN_OR_RETURN(const uint32_t bus_width, DeviceField(json, "bus_width", pointer));
  device->set_arch(arch);
  device->set_num_sms(num_sms);
  device->set_clock_rate_khz(clock);
  device->set_memory_clock_rate_khz(memory_clock);
  device->set_bus_width_bits(bus_width);
  return absl::OkStatus();
}

absl::Status ConvertDevices(const Json& info, v1::Tree* tree) {
  if (!info.is_object()) return Invalid(JsonPointer("/1"), "device_info must be an object");
  const Json* cuda = FindMember(info, "CUDA");
  if (cuda == nullptr) return absl::OkStatus();
  if (!cuda->is_object()) return Invalid(JsonPointer("/1/CUDA"), "must be an object");
  for (const auto& [id, device] : cuda->items()) {
    const JsonPointer pointer(absl::StrCat("/1/CUDA/", id));
    v1::Device* converted = tree->add_devices();
    ASSIGN_OR_RETURN(const uint32_t device_id, ParseDeviceId(id, pointer));
    converted->set_device_id(device_id);
    RETURN_IF_ERROR(ConvertDevice(device, pointer, converted));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::Tree> BuildTree(const Json& document_untrusted) {
  if (!document_untrusted.is_array() || document_untrusted.empty() ||
      document_untrusted.size() > 2) {
    return Invalid(JsonPointer(""), "a Hatchet profile is an array [root, device_info]");
  }
  v1::Tree tree;
  RETURN_IF_ERROR(ConvertNodes(document_untrusted[0], &tree));
  if (document_untrusted.size() == 2) RETURN_IF_ERROR(ConvertDevices(document_untrusted[1], &tree));
  return tree;
}

}  // namespace protond::view::hatchet_tree
