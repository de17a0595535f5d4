// Reads a Hatchet profile, written by Triton's Proton or by protond, as JSON (`<name>.hatchet`) or
// as MessagePack (newer Proton's `<name>.hatchet_msgpack`), into the v1::Tree that protond's API
// gives for a session, so that protonctl renders a file and a session with the same code. The
// input is untrusted: every shape and type is checked, and a bad file is an InvalidArgumentError
// that says where (a byte offset or a JSON pointer) and what.
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

// The same content encoded as MessagePack gives the same tree. Before nlohmann decodes the bytes
// (its decoder recurses once per nesting level), a walk with its own stack refuses arrays and
// maps nested deeper than a tree of kMaxTreeDepth levels needs, lengths past the end of the
// input, trailing bytes, binary data, extension types, keys that are not strings and strings
// that are not UTF-8, naming the byte offset. Every error starts with "MessagePack: ".
absl::StatusOr<v1::Tree> ParseHatchetMsgPack(std::string_view msgpack_untrusted);

// ParseHatchetMsgPack when the bytes start with a MessagePack array header (0x90-0x9f, 0xdc or
// 0xdd: no JSON text starts with one of them), else ParseHatchet: the content decides, whatever
// the file is called.
absl::StatusOr<v1::Tree> ParseHatchetProfile(std::string_view bytes_untrusted);

// ParseHatchetProfile of the file at `path`; errors start with the path.
absl::StatusOr<v1::Tree> ReadHatchetFile(const std::string& path);

}  // namespace protond::view

#endif  // PROTOND_VIEW_HATCHET_HATCHET_READER_H_
