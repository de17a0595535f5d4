#include "common/text/session_id.h"

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace protond::text {

absl::StatusOr<uint64_t> ParseSessionId(const std::string& text) {
  uint64_t id;
  if (!absl::SimpleAtoi(text, &id) || id == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", text, "' is not a session id (a positive number; see protonctl sessions)"));
  }
  return id;
}

}  // namespace protond::text
