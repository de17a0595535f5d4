// A session id as people type it (protonctl's arguments, the web page's parameters): one parser,
// so that both refuse the same text with the same message.
#ifndef PROTOND_COMMON_TEXT_SESSION_ID_H_
#define PROTOND_COMMON_TEXT_SESSION_ID_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace protond::text {

// A positive decimal number; INVALID_ARGUMENT naming the text otherwise.
absl::StatusOr<uint64_t> ParseSessionId(const std::string& text);

}  // namespace protond::text

#endif  // PROTOND_COMMON_TEXT_SESSION_ID_H_
