#include "view/hatchet/hatchet_writer.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "view/hatchet/internal/hatchet_content.h"

namespace protond::view {
namespace {

using hatchet_content::DeviceInfo;
using hatchet_content::Frame;
using hatchet_content::Json;
using hatchet_content::NodeMetrics;
using hatchet_content::RootMetrics;
using hatchet_content::Shape;

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

}  // namespace

std::string RenderHatchet(const v1::Tree& tree) {
  v1::Tree root_alone;
  const v1::Tree& written = hatchet_content::WrittenTree(tree, &root_alone);
  const Shape shape = hatchet_content::ShapeOf(written);
  const JsonLayout layout(shape.depth <= kMaxIndentedDepth);
  std::string out = "\n[" + layout.Break(1);
  AppendNodes(written, shape, layout, &out);
  absl::StrAppend(&out, ",", layout.Break(1), layout.Dump(DeviceInfo(written), 1), layout.Break(0),
                  "]\n");
  return out;
}

}  // namespace protond::view
