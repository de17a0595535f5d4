// Reads a Hatchet JSON profile (`<name>.hatchet`, written by Triton's Proton or by protond) into
// the v1::Tree that protond's API gives for a session, so that protonctl renders a file and a
// session with the same code. The input is untrusted: every shape and type is checked, and a
// bad file is an InvalidArgumentError that says where (a byte offset or a JSON pointer) and what.
#ifndef PROTOND_VIEW_HATCHET_HATCHET_READER_H_
#define PROTOND_VIEW_HATCHET_HATCHET_READER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view {

// `[root, device_info]` (device_info may be left out, as proton-viewer allows) becomes:
// - nodes in pre-order with ids 0, 1, 2, ... (ROOT is 0), children in file order;
// - each number in "metrics" a Metric (an integer stays an integer); "count" becomes the node's
//   count, "device_id" (a string in Proton's files) an integer PROPERTY, "device_type" is
//   dropped (device_info says it). Names that ROOT lists (Proton's zero placeholders) are
//   INCLUSIVE, others EXCLUSIVE; when ROOT lists none, every metric is INCLUSIVE. ROOT's zero
//   placeholders themselves are not kept.
// - device_info["CUDA"][id] a Device (arch "90" -> 90). Other device types are left out: the
//   peak table knows NVIDIA GPUs only.
// Scopes carry no CPU count or duration: Hatchet files do not have them. A tree that goes
// deeper than kMaxTreeDepth levels below ROOT (common/tree/tree_depth.h) is refused.
absl::StatusOr<v1::Tree> ParseHatchet(std::string_view json_untrusted);

// ParseHatchet of the file at `path`; errors start with the path.
absl::StatusOr<v1::Tree> ReadHatchetFile(const std::string& path);

}  // namespace protond::view

#endif  // PROTOND_VIEW_HATCHET_HATCHET_READER_H_
