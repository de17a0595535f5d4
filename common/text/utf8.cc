#include "common/text/utf8.h"

namespace protond::text {

size_t DecodeUtf8(absl::string_view text, uint32_t* code_point) {
  if (text.empty()) return 0;
  const auto lead = static_cast<unsigned char>(text[0]);
  const size_t length = lead < 0x80   ? 1
                        : lead < 0xc2 ? 0
                        : lead < 0xe0 ? 2
                        : lead < 0xf0 ? 3
                        : lead < 0xf5 ? 4
                                      : 0;
  if (length == 0 || length > text.size()) return 0;
  *code_point = length == 1 ? lead : lead & (0x7f >> length);
  for (size_t i = 1; i < length; ++i) {
    const auto next = static_cast<unsigned char>(text[i]);
    if ((next & 0xc0) != 0x80) return 0;
    *code_point = (*code_point << 6) | (next & 0x3f);
  }
  constexpr uint32_t kLeastOfLength[] = {0, 0, 0x80, 0x800, 0x10000};
  const bool surrogate = *code_point >= 0xd800 && *code_point <= 0xdfff;
  if (*code_point < kLeastOfLength[length] || surrogate || *code_point > 0x10ffff) return 0;
  return length;
}

size_t FindInvalidUtf8(absl::string_view text) {
  for (size_t i = 0; i < text.size();) {
    uint32_t code_point = 0;
    const size_t length = DecodeUtf8(text.substr(i), &code_point);
    if (length == 0) return i;
    i += length;
  }
  return absl::string_view::npos;
}

}  // namespace protond::text
