#include <string>
#include <vector>

#include "view/hatchet/hatchet_writer.h"
#include "view/hatchet/internal/hatchet_content.h"
#include "view/hatchet/msgpack_writer.h"

namespace protond::view {
namespace {

using hatchet_content::Json;

// A small value (a frame, a node's metrics, device_info): recursion is bounded by its own few
// levels, never by the tree's depth.
void AppendValue(const Json& value, MsgPackWriter& out) {
  switch (value.type()) {
    case Json::value_t::object:
      out.MapHeader(static_cast<uint32_t>(value.size()));
      for (const auto& [key, element] : value.items()) {
        out.Str(key);
        AppendValue(element, out);
      }
      return;
    case Json::value_t::array:
      out.ArrayHeader(static_cast<uint32_t>(value.size()));
      for (const Json& element : value) AppendValue(element, out);
      return;
    case Json::value_t::string:
      return out.Str(value.get_ref<const std::string&>());
    case Json::value_t::number_unsigned:
      return out.UInt(value.get<uint64_t>());
    case Json::value_t::number_integer:
      return out.Int(value.get<int64_t>());
    case Json::value_t::number_float:
      return out.Double(value.get<double>());
    default:  // the content has no booleans, nulls or binaries
      return out.MapHeader(0);
  }
}

// The tree from ROOT in pre-order, each node a map of "frame", "metrics" and "children" (the
// order Proton writes them in), with an explicit stack: a tree's depth must not decide the
// writer's stack depth. A node's children array is written whole before its first child, since
// MessagePack gives each array's length up front.
void AppendNodes(const v1::Tree& tree, const hatchet_content::Shape& shape, MsgPackWriter& out) {
  std::vector<int> pending = {0};
  while (!pending.empty()) {
    const int node = pending.back();
    pending.pop_back();
    out.MapHeader(3);
    out.Str("frame");
    AppendValue(hatchet_content::Frame(tree.nodes(node).name()), out);
    out.Str("metrics");
    AppendValue(node == 0 ? hatchet_content::RootMetrics(tree)
                          : hatchet_content::NodeMetrics(tree.nodes(node)),
                out);
    out.Str("children");
    const std::vector<int>& children = shape.children[node];
    out.ArrayHeader(static_cast<uint32_t>(children.size()));
    pending.insert(pending.end(), children.rbegin(), children.rend());
  }
}

}  // namespace

std::string RenderHatchetMsgPack(const v1::Tree& tree) {
  v1::Tree root_alone;
  const v1::Tree& written = hatchet_content::WrittenTree(tree, &root_alone);
  MsgPackWriter out;
  out.ArrayHeader(2);
  AppendNodes(written, hatchet_content::ShapeOf(written), out);
  AppendValue(hatchet_content::DeviceInfo(written), out);
  return std::move(out).Take();
}

}  // namespace protond::view
