// Reads arbitrary text as nvdisasm's listing, for the function named by the input's first line.
// The listing is derived from cubins that profiled programs send, so the parser meets what they
// choose. It must terminate, never read out of bounds, and answer with instructions (each one
// line of the listing) or an error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "daemon/sass/sass_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view function = input.substr(0, newline);
  const std::string_view listing =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  const auto instructions = protond::sass::ParseNvdisasm(listing, function);
  if (!instructions.ok()) return 0;
  for (const auto& [offset, text] : *instructions) {
    if (text.find('\n') != std::string_view::npos) __builtin_trap();
  }
  return 0;
}
