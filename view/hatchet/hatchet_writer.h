// Proton's Hatchet JSON (and its MessagePack encoding) for a session's tree: the file
// `proton.finalize()` writes and proton-viewer and hatchet read, so a profile taken by protond
// opens wherever a Proton profile does. The layout is the one Triton 3.6's Proton writes: a leading
// newline, the JSON with 4-space indentation, sorted keys and non-ASCII escaped, and a closing
// newline (PROTON_COMPAT.md); tests/gpu/compare_python_api.py checks the content against Proton's
// own file. A tree more than 64 levels deep is written without indentation or line breaks (compact
// JSON), in bytes that grow with the tree: indented, they would grow with the square of its depth.
#ifndef PROTOND_VIEW_HATCHET_HATCHET_WRITER_H_
#define PROTOND_VIEW_HATCHET_HATCHET_WRITER_H_

#include <string>

#include "protond.pb.h"

namespace protond::view {

// `[root, device_info]`: every node as {"children", "frame": {"name", "type": "function"},
// "metrics"}. GPU nodes (those with a "time (ns)" metric) carry "count", "time (ns)",
// "device_id" (a string) and "device_type" "CUDA" beside their other metrics; scope nodes carry
// only the user metrics given in them (their CPU count and duration are not Proton metrics).
// ROOT's metrics are zero placeholders, one for each summed (not exclusive, not property) metric
// name in the tree.
std::string RenderHatchet(const v1::Tree& tree);

// The same content as RenderHatchet's, encoded as MessagePack: Proton's `hatchet_msgpack` format
// (finalize(output_format="hatchet_msgpack") writes `<name>.hatchet_msgpack`). The top level is
// an array of two, [root, device_info]; each node a map of "frame", "metrics" and "children", in
// that order, as Proton writes them; metrics with their keys sorted. Integers take their smallest
// MessagePack form and doubles are float64, as in Proton's writer (msgpack_writer.h). Deep trees
// are written with a loop, not a recursion.
std::string RenderHatchetMsgPack(const v1::Tree& tree);

}  // namespace protond::view

#endif  // PROTOND_VIEW_HATCHET_HATCHET_WRITER_H_
