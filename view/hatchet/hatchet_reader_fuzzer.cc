// Parses arbitrary bytes as a `.hatchet` file, the way protonctl reads one it is given: the reader
// must answer a tree or an error, never crash, read out of bounds or recurse without limit. A
// tree it answers must be one the renderers can walk (internal/walkable_tree.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "view/hatchet/hatchet_reader.h"
#include "view/hatchet/internal/walkable_tree.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<protond::v1::Tree> tree = protond::view::ParseHatchet(json);
  if (tree.ok()) protond::view::hatchet_fuzz::TrapUnlessWalkable(*tree);
  return 0;
}
