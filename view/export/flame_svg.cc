#include "view/export/flame_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace protond::view {
namespace {

// The graph spans kWidthPx minus a margin on each side; the title and reset control sit above
// it, the hovered frame's details below.
constexpr double kWidthPx = 1200;
constexpr double kMarginPx = 10;
constexpr double kGraphWidthPx = kWidthPx - 2 * kMarginPx;
constexpr double kFrameHeightPx = 16;
constexpr double kTopPx = 36;
constexpr double kBottomPx = 28;
constexpr double kMinFrameWidthPx = 0.1;
// A character of the 12px monospace labels is about this wide; labels are cut to fit.
constexpr double kCharWidthPx = 7.2;

// Shown when the browser runs scripts: zoom on click, details on hover. The layout stays in the
// SVG attributes, so a viewer without scripts still shows the whole graph.
constexpr char kScript[] = R"js(
(function () {
  'use strict';
  var svg = document.documentElement;
  var graphX = Number(svg.getAttribute('data-graph-x'));
  var graphWidth = Number(svg.getAttribute('data-graph-width'));
  var charWidth = Number(svg.getAttribute('data-char-width'));
  var frames = Array.prototype.slice.call(document.getElementsByClassName('frame'));
  var details = document.getElementById('details');
  var reset = document.getElementById('reset');
  var EPS = 1e-9;
  function num(g, key) { return Number(g.getAttribute('data-' + key)); }
  function label(name, px) {
    var chars = Math.floor((px - 6) / charWidth);
    if (chars < 3) return '';
    return name.length <= chars ? name : name.slice(0, chars - 2) + '..';
  }
  function place(g, x, w) {
    var rect = g.getElementsByTagName('rect')[0];
    var text = g.getElementsByTagName('text')[0];
    rect.setAttribute('x', (graphX + x * graphWidth).toFixed(2));
    rect.setAttribute('width', Math.max(0, w * graphWidth - 0.5).toFixed(2));
    text.setAttribute('x', (graphX + x * graphWidth + 3).toFixed(2));
    text.textContent = label(g.getAttribute('data-name'), w * graphWidth);
    g.style.display = '';
  }
  function zoom(target) {
    var tx = num(target, 'x'), tw = num(target, 'w'), td = num(target, 'd');
    frames.forEach(function (g) {
      var x = num(g, 'x'), w = num(g, 'w'), d = num(g, 'd');
      g.classList.remove('ancestor');
      if (d < td && x <= tx + EPS && x + w >= tx + tw - EPS) {
        place(g, 0, 1);
        g.classList.add('ancestor');
      } else if (d >= td && x >= tx - EPS && x + w <= tx + tw + EPS) {
        place(g, (x - tx) / tw, w / tw);
      } else {
        g.style.display = 'none';
      }
    });
    reset.style.display = '';
  }
  function unzoom() {
    frames.forEach(function (g) {
      g.classList.remove('ancestor');
      place(g, num(g, 'x'), num(g, 'w'));
    });
    reset.style.display = 'none';
  }
  svg.addEventListener('click', function (event) {
    var g = event.target.closest('.frame');
    if (g) zoom(g);
    else if (event.target === reset) unzoom();
  });
  svg.addEventListener('mouseover', function (event) {
    var g = event.target.closest('.frame');
    details.textContent = g ? g.getElementsByTagName('title')[0].textContent : '';
  });
})();
)js";

constexpr char kStyle[] =
    "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
    ".frame text { pointer-events: none; }\n"
    ".frame { cursor: pointer; }\n"
    ".frame:hover rect { stroke: #000; stroke-width: 0.5; }\n"
    ".ancestor { opacity: 0.6; }\n"
    "#reset { cursor: pointer; fill: #1a5fb4; }\n"
    "#title { font-size: 16px; }\n";

// Text and attribute values; control characters, which XML 1.0 forbids, become spaces.
std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
  }
  return out;
}

// The label that fits `width_px`, as the script's label() cuts it.
std::string Label(const std::string& name, double width_px) {
  const double chars = std::floor((width_px - 6) / kCharWidthPx);
  if (chars < 3) return "";
  const size_t fit = static_cast<size_t>(chars);
  return name.size() <= fit ? name : absl::StrCat(name.substr(0, fit - 2), "..");
}

// Warm colours, fixed per name, so one kernel has one colour wherever it appears.
std::string Colour(const std::string& name) {
  uint32_t hash = 2166136261u;  // FNV-1a
  for (char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return absl::StrFormat("rgb(%d,%d,%d)", 205 + hash % 50, (hash >> 8) % 230, (hash >> 16) % 55);
}

std::string FormatValue(double value) {
  return value == std::floor(value) ? absl::StrFormat("%.0f", value)
                                    : absl::StrFormat("%.3f", value);
}

struct Layout {
  const FlameGraph& graph;
  double root_total;
  int max_depth;
};

// A frame and where it goes: its left edge as a fraction of ROOT's width.
struct Placed {
  int node;
  double x;
};

void AppendFrame(const Layout& layout, Placed frame, double w, std::string* out) {
  const FlameGraph& graph = layout.graph;
  const int depth = graph.shape.depth[frame.node];
  const double x_px = kMarginPx + frame.x * kGraphWidthPx;
  const double y_px = kTopPx + (layout.max_depth - depth) * kFrameHeightPx;
  const std::string& name = graph.names[frame.node];
  absl::StrAppendFormat(
      out,
      "<g class=\"frame\" data-x=\"%.10g\" data-w=\"%.10g\" data-d=\"%d\" data-name=\"%s\">"
      "<title>%s: %s %s (%.2f%%)</title><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
      "height=\"%.2f\" rx=\"2\" fill=\"%s\"/><text x=\"%.2f\" y=\"%.2f\">%s</text></g>\n",
      frame.x, w, depth, XmlEscape(name), XmlEscape(name), FormatValue(graph.total[frame.node]),
      XmlEscape(graph.metric), 100 * w, x_px, y_px, std::max(0.0, w * kGraphWidthPx - 0.5),
      kFrameHeightPx - 1, Colour(name), x_px + 3, y_px + 11.5,
      XmlEscape(Label(name, w * kGraphWidthPx)));
}

// Pre-order with an explicit stack, so that a tree's depth does not decide protonctl's. A frame
// too narrow to draw is left out with everything above it.
void AppendFrames(const Layout& layout, std::string* out) {
  const FlameGraph& graph = layout.graph;
  std::vector<Placed> to_draw = {{0, 0}};
  while (!to_draw.empty()) {
    const Placed frame = to_draw.back();
    to_draw.pop_back();
    const double w = graph.total[frame.node] / layout.root_total;
    if (w * kGraphWidthPx < kMinFrameWidthPx) continue;
    AppendFrame(layout, frame, w, out);
    // Children side by side from the frame's left edge, pushed last first so the first is drawn
    // first.
    const std::vector<int>& children = graph.shape.children[frame.node];
    const size_t first = to_draw.size();
    double child_x = frame.x;
    for (int child : children) {
      to_draw.push_back({child, child_x});
      child_x += graph.total[child] / layout.root_total;
    }
    std::reverse(to_draw.begin() + first, to_draw.end());
  }
}

}  // namespace

std::string RenderFlameSvg(const FlameGraph& graph) {
  const int max_depth = graph.shape.depth.empty()
                            ? 0
                            : *std::max_element(graph.shape.depth.begin(), graph.shape.depth.end());
  const double height_px = kTopPx + (max_depth + 1) * kFrameHeightPx + kBottomPx;
  std::string out = absl::StrFormat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" data-graph-x=\"%.0f\" data-graph-width=\"%.0f\" "
      "data-char-width=\"%.1f\">\n<style>\n%s</style>\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"#fdfdf6\"/>\n"
      "<text id=\"title\" x=\"%.0f\" y=\"20\" text-anchor=\"middle\">Flame graph: %s</text>\n"
      "<text id=\"reset\" x=\"%.0f\" y=\"20\" style=\"display:none\">Reset zoom</text>\n"
      "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n",
      kWidthPx, height_px, kWidthPx, height_px, kMarginPx, kGraphWidthPx, kCharWidthPx, kStyle,
      kWidthPx / 2, XmlEscape(graph.metric), kMarginPx, kMarginPx, height_px - 10);
  if (!graph.total.empty() && graph.total[0] > 0) {
    AppendFrames({graph, graph.total[0], max_depth}, &out);
  }
  absl::StrAppend(&out, "<script><![CDATA[", kScript, "]]></script>\n</svg>\n");
  return out;
}

}  // namespace protond::view
