#include "common/text/printable_text.h"

#include "absl/strings/str_format.h"

namespace protond::text {
namespace {

// A control character found in text: its UTF-8 length (0 for none) and its code point.
struct Control {
  size_t bytes = 0;
  uint32_t code_point = 0;
};

// Bidi formatting characters (U+061C, U+200E/F, U+202A..E, U+2066..9): they reorder what
// follows them on the terminal, so a name could make the text after it read differently.
bool IsBidiControl(uint32_t code_point) {
  return code_point == 0x061c || code_point == 0x200e || code_point == 0x200f ||
         (code_point >= 0x202a && code_point <= 0x202e) ||
         (code_point >= 0x2066 && code_point <= 0x2069);
}

// The control character at `i`: C0 and DEL (1 byte), C1 (2 bytes), a bidi control (2 or 3).
Control ControlAt(absl::string_view text, size_t i) {
  const auto byte = [&](size_t at) {
    return at < text.size() ? static_cast<unsigned char>(text[at]) : 0u;
  };
  const uint32_t lead = byte(i);
  if (lead < 0x20 || lead == 0x7f) return {1, lead};
  const bool continued = (byte(i + 1) & 0xc0) == 0x80;
  if (lead >= 0xc2 && lead <= 0xdf && continued) {
    const uint32_t code_point = ((lead & 0x1f) << 6) | (byte(i + 1) & 0x3f);
    if (code_point <= 0x9f || IsBidiControl(code_point)) return {2, code_point};
  } else if (lead == 0xe2 && continued && (byte(i + 2) & 0xc0) == 0x80) {
    const uint32_t code_point = 0x2000 | ((byte(i + 1) & 0x3f) << 6) | (byte(i + 2) & 0x3f);
    if (IsBidiControl(code_point)) return {3, code_point};
  }
  return {};
}

}  // namespace

size_t FindControlCharacter(absl::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (ControlAt(text, i).bytes > 0) return i;
  }
  return absl::string_view::npos;
}

std::string PrintableText(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const Control control = ControlAt(text, i);
    if (control.bytes == 0) {
      out += text[i];
    } else if (control.bytes == 1) {
      absl::StrAppendFormat(&out, "\\x%02x", control.code_point);
    } else {
      absl::StrAppendFormat(&out, "\\u%04x", control.code_point);
      i += control.bytes - 1;
    }
  }
  return out;
}

}  // namespace protond::text
