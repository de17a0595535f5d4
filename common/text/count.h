// A count as people type it (protonctl's -n and -d, the web page's `limit`): one parser, so that
// both refuse the same text with the same message.
#ifndef PROTOND_COMMON_TEXT_COUNT_H_
#define PROTOND_COMMON_TEXT_COUNT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::text {

// A number >= 0; INVALID_ARGUMENT "`option` needs a number >= 0, not 'TEXT'" otherwise.
absl::StatusOr<int> ParseCount(absl::string_view option, const std::string& text);

}  // namespace protond::text

#endif  // PROTOND_COMMON_TEXT_COUNT_H_
