#include "view/render/display_width.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "common/text/utf8.h"

namespace protond::view {
namespace {

struct CodePointRange {
  uint32_t first;
  uint32_t last;
};

// glibc's wcwidth() would need a UTF-8 locale, which protonctl does not set (and the user's may
// not be one), and Debian 12's utf8proc is one more dependency for one table. These ranges are
// the blocks of Unicode 15's East Asian Width W and F and the emoji with Emoji_Presentation,
// merged where they are contiguous; sorted, for a binary search.
constexpr CodePointRange kWideRanges[] = {
    {0x1100, 0x115f},   {0x231a, 0x231b},   {0x2329, 0x232a},   {0x23e9, 0x23ec},
    {0x23f0, 0x23f0},   {0x23f3, 0x23f3},   {0x25fd, 0x25fe},   {0x2614, 0x2615},
    {0x2648, 0x2653},   {0x267f, 0x267f},   {0x2693, 0x2693},   {0x26a1, 0x26a1},
    {0x26aa, 0x26ab},   {0x26bd, 0x26be},   {0x26c4, 0x26c5},   {0x26ce, 0x26ce},
    {0x26d4, 0x26d4},   {0x26ea, 0x26ea},   {0x26f2, 0x26f3},   {0x26f5, 0x26f5},
    {0x26fa, 0x26fa},   {0x26fd, 0x26fd},   {0x2705, 0x2705},   {0x270a, 0x270b},
    {0x2728, 0x2728},   {0x274c, 0x274c},   {0x274e, 0x274e},   {0x2753, 0x2755},
    {0x2757, 0x2757},   {0x2795, 0x2797},   {0x27b0, 0x27b0},   {0x27bf, 0x27bf},
    {0x2b1b, 0x2b1c},   {0x2b50, 0x2b50},   {0x2b55, 0x2b55},   {0x2e80, 0x303e},
    {0x3041, 0x33ff},   {0x3400, 0x4dbf},   {0x4e00, 0x9fff},   {0xa000, 0xa4cf},
    {0xa960, 0xa97f},   {0xac00, 0xd7a3},   {0xf900, 0xfaff},   {0xfe10, 0xfe19},
    {0xfe30, 0xfe6f},   {0xff00, 0xff60},   {0xffe0, 0xffe6},   {0x16fe0, 0x18cff},
    {0x1b000, 0x1b2ff}, {0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e},
    {0x1f191, 0x1f19a}, {0x1f200, 0x1f2ff}, {0x1f300, 0x1f64f}, {0x1f680, 0x1f6ff},
    {0x1f7e0, 0x1f7eb}, {0x1f900, 0x1f9ff}, {0x1fa70, 0x1faff}, {0x20000, 0x3fffd}};

// Combining marks, zero-width spaces and joiners, variation selectors: drawn on the character
// before them or not at all.
constexpr CodePointRange kZeroWidthRanges[] = {
    {0x0300, 0x036f}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff}, {0x200b, 0x200d}, {0x2060, 0x2060},
    {0x20d0, 0x20ff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f}, {0xfeff, 0xfeff}, {0xe0100, 0xe01ef}};

template <size_t N>
bool InRanges(const CodePointRange (&ranges)[N], uint32_t code_point) {
  const auto* after = std::upper_bound(
      std::begin(ranges), std::end(ranges), code_point,
      [](uint32_t value, const CodePointRange& range) { return value < range.first; });
  return after != std::begin(ranges) && code_point <= std::prev(after)->last;
}

size_t CodePointWidth(uint32_t code_point) {
  if (InRanges(kZeroWidthRanges, code_point)) return 0;
  return InRanges(kWideRanges, code_point) ? 2 : 1;
}

}  // namespace

size_t DisplayWidth(absl::string_view text) {
  size_t width = 0;
  while (!text.empty()) {
    uint32_t code_point;
    const size_t length = text::DecodeUtf8(text, &code_point);
    width += length == 0 ? 1 : CodePointWidth(code_point);
    text.remove_prefix(length == 0 ? 1 : length);
  }
  return width;
}

}  // namespace protond::view
