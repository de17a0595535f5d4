// UTF-8 as protond and protonctl read text that others chose: one decoder, strict about what is
// well-formed, for checking names, measuring their width and escaping them.
#ifndef PROTOND_COMMON_TEXT_UTF8_H_
#define PROTOND_COMMON_TEXT_UTF8_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace protond::text {

// Decodes the UTF-8 character at the start of `text` into `code_point`; returns its length, or 0
// when `text` is empty or does not start with a well-formed one (a stray continuation byte, an
// overlong form, a surrogate, a code point past U+10FFFF, a sequence cut short).
size_t DecodeUtf8(absl::string_view text, uint32_t* code_point);

// Where the first byte that is not part of well-formed UTF-8 is in `text`; npos when all is.
size_t FindInvalidUtf8(absl::string_view text);

}  // namespace protond::text

#endif  // PROTOND_COMMON_TEXT_UTF8_H_
