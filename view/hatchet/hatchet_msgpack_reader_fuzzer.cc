// Parses arbitrary bytes as a `.hatchet_msgpack` file: the reader's own walk must refuse whatever
// would make nlohmann's decoder recurse too deep, reserve too much or throw, so that the reader
// answers a tree or an error, never crashes, reads out of bounds or overflows the stack. A tree
// it answers must be one the renderers can walk (internal/walkable_tree.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "view/hatchet/hatchet_reader.h"
#include "view/hatchet/internal/walkable_tree.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view msgpack(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<protond::v1::Tree> tree = protond::view::ParseHatchetMsgPack(msgpack);
  if (tree.ok()) protond::view::hatchet_fuzz::TrapUnlessWalkable(*tree);
  return 0;
}
