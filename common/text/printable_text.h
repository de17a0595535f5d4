// Text that a profiled program or another user chose (scope and kernel names, command lines,
// session names) as protonctl and protond may print it on a terminal.
#ifndef PROTOND_COMMON_TEXT_PRINTABLE_TEXT_H_
#define PROTOND_COMMON_TEXT_PRINTABLE_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace protond::text {

// `text` with every control character made visible: C0 and DEL as "\xNN", C1 (U+0080..U+009F in
// UTF-8) and the bidi controls (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) as
// "\uNNNN". A name could otherwise clear the screen, move the cursor, retitle the terminal, break
// a tree's line in two or reverse the text after it. Everything else, other UTF-8 included, is
// kept.
std::string PrintableText(absl::string_view text);

// Where the first of those control characters starts in `text`; npos when it has none.
size_t FindControlCharacter(absl::string_view text);

}  // namespace protond::text

#endif  // PROTOND_COMMON_TEXT_PRINTABLE_TEXT_H_
