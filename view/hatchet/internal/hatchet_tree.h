// The tree building that the two Hatchet readers share (hatchet_reader.h): a profile decoded from
// JSON text or from MessagePack bytes is the same nlohmann value, and becomes the same v1::Tree by
// the same checks, so that the two formats cannot drift apart.
#ifndef PROTOND_VIEW_HATCHET_INTERNAL_HATCHET_TREE_H_
#define PROTOND_VIEW_HATCHET_INTERNAL_HATCHET_TREE_H_

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::view::hatchet_tree {

// `[root, device_info]`, untrusted, as ParseHatchet describes it; an error names a JSON pointer.
// Walks the tree with an explicit stack, so a deep document costs no stack; the caller's decoder
// must not have recursed without bound either.
absl::StatusOr<v1::Tree> BuildTree(const nlohmann::json& document_untrusted);

}  // namespace protond::view::hatchet_tree

#endif  // PROTOND_VIEW_HATCHET_INTERNAL_HATCHET_TREE_H_
