// `protonctl export --format svg`: a flame graph in one self-contained SVG file (no external
// scripts, styles or fonts) that a browser opens: hover a frame for its name and value, click it
// to zoom in, "Reset zoom" to go back. Pure functions; no I/O.
#ifndef PROTOND_VIEW_EXPORT_FLAME_SVG_H_
#define PROTOND_VIEW_EXPORT_FLAME_SVG_H_

#include <string>

#include "view/export/flame_graph.h"

namespace protond::view {

// ROOT at the bottom, callees above their callers, widths by FlameGraph::total. Every frame is a
// <g class="frame"> with data-x, data-w (its left edge and width as fractions of ROOT's), data-d
// (its depth) and data-name, holding a <title>, a <rect> and a <text> label. Frames narrower than
// 0.1 pixel at full view are left out with what is above them, as flamegraph.pl does: zooming
// does not bring them back.
std::string RenderFlameSvg(const FlameGraph& graph);

}  // namespace protond::view

#endif  // PROTOND_VIEW_EXPORT_FLAME_SVG_H_
