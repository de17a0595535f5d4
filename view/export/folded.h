// `protonctl export --format folded`: collapsed stacks, the input of flamegraph.pl, speedscope
// and inferno. Pure functions; no I/O.
#ifndef PROTOND_VIEW_EXPORT_FOLDED_H_
#define PROTOND_VIEW_EXPORT_FOLDED_H_

#include <string>

#include "view/export/flame_graph.h"

namespace protond::view {

// A line "ROOT;scope;kernel VALUE" per frame whose own part (FlameGraph::self), rounded to an
// integer, is not 0, in pre-order. The tools sum the lines of a stack and its descendants, so each
// line carries only the frame's own part. A ';' in a name becomes ':' and control characters
// spaces, which would otherwise split a frame or a line. Each line spells out its whole stack,
// at most kMaxTreeDepth + 1 frames (common/tree/tree_depth.h): frames with no own part of the
// metric, the scopes around kernels usually, get no line of their own.
std::string RenderFolded(const FlameGraph& graph);

}  // namespace protond::view

#endif  // PROTOND_VIEW_EXPORT_FOLDED_H_
