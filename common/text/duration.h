// Durations as people type them on a command line (protonctl start --duration, protond
// --always-on-window): one parser, so that both refuse the same text with the same message.
#ifndef PROTOND_COMMON_TEXT_DURATION_H_
#define PROTOND_COMMON_TEXT_DURATION_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::text {

// "30s", "2m", "1h", "14d", "500ms", or a bare number of seconds, in milliseconds; more than
// zero.
// INVALID_ARGUMENT naming the text otherwise.
absl::StatusOr<uint64_t> ParseDurationMs(absl::string_view text);

}  // namespace protond::text

#endif  // PROTOND_COMMON_TEXT_DURATION_H_
