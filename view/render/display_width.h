// How many terminal columns UTF-8 text takes, for aligning tables of names protonctl did not
// choose (session names, command lines). Pure functions; no locale.
#ifndef PROTOND_VIEW_RENDER_DISPLAY_WIDTH_H_
#define PROTOND_VIEW_RENDER_DISPLAY_WIDTH_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace protond::view {

// The columns of `text` on a terminal: 2 for each East Asian Wide or Fullwidth character and
// emoji shown as emoji, 0 for combining marks, zero-width characters and variation selectors, 1
// for everything else, and 1 for each byte that is not part of well-formed UTF-8 (the terminal
// shows a replacement character for it). Control characters are expected escaped already
// (PrintableText).
size_t DisplayWidth(absl::string_view text);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_DISPLAY_WIDTH_H_
