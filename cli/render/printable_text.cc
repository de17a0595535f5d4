#include "cli/render/printable_text.h"

#include "absl/strings/str_format.h"

namespace protond::cli {
namespace {

// The bytes of the control character at `i`: 1 for C0 and DEL, 2 for C1, 0 for none.
size_t ControlBytesAt(absl::string_view text, size_t i) {
  const auto byte = static_cast<unsigned char>(text[i]);
  if (byte < 0x20 || byte == 0x7f) return 1;
  const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
  return byte == 0xc2 && next >= 0x80 && next <= 0x9f ? 2 : 0;
}

}  // namespace

size_t FindControlCharacter(absl::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (ControlBytesAt(text, i) > 0) return i;
  }
  return absl::string_view::npos;
}

std::string PrintableText(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    switch (ControlBytesAt(text, i)) {
      case 1:
        absl::StrAppendFormat(&out, "\\x%02x", static_cast<unsigned char>(text[i]));
        break;
      case 2:
        absl::StrAppendFormat(&out, "\\u%04x", static_cast<unsigned char>(text[++i]));
        break;
      default:
        out += text[i];
    }
  }
  return out;
}

}  // namespace protond::cli
