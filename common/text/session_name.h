// What a session name may be, checked alike by protonctl and the client library (before a request
// is built: a name that is not UTF-8 cannot travel in protond.proto's string fields) and by
// protond (for any other client).
#ifndef PROTOND_COMMON_TEXT_SESSION_NAME_H_
#define PROTOND_COMMON_TEXT_SESSION_NAME_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace protond::text {

inline constexpr size_t kMaxSessionNameBytes = 256;

// OK for a name of at most kMaxSessionNameBytes of UTF-8 without control characters (those
// PrintableText escapes): a name is printed in tables and messages as it is, so one that moves a
// terminal's cursor or breaks a line is refused rather than stored. Otherwise InvalidArgumentError
// naming the first byte that is wrong. "" is allowed (protond names such a session "session").
absl::Status CheckSessionName(absl::string_view name);

}  // namespace protond::text

#endif  // PROTOND_COMMON_TEXT_SESSION_NAME_H_
