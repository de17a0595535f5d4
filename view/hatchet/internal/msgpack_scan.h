// A check of untrusted MessagePack bytes before they are decoded. nlohmann's decoder
// (from_msgpack) recurses once per level of nesting, so bytes nested a million levels deep would
// overflow the stack; this walk keeps its own stack (a count of items left per open array or map)
// and refuses them first, with whatever else the Hatchet readers do not take.
#ifndef PROTOND_VIEW_HATCHET_INTERNAL_MSGPACK_SCAN_H_
#define PROTOND_VIEW_HATCHET_INTERNAL_MSGPACK_SCAN_H_

#include <string_view>

#include "absl/status/status.h"

namespace protond::view::msgpack_scan {

// OK when `bytes_untrusted` hold exactly one MessagePack value built of nil, booleans, integers,
// floats, UTF-8 strings, arrays and maps whose keys are strings, with arrays and maps nested at
// most `max_nesting` deep (the outermost array is level 1), and every length within the bytes
// left (an item takes at least one byte). Otherwise an InvalidArgumentError "byte offset N: ..."
// naming the offset of the value at fault; binary data and extension types are refused by name.
absl::Status CheckMsgPack(std::string_view bytes_untrusted, int max_nesting);

}  // namespace protond::view::msgpack_scan

#endif  // PROTOND_VIEW_HATCHET_INTERNAL_MSGPACK_SCAN_H_
