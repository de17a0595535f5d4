#include "common/text/count.h"

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace protond::text {

absl::StatusOr<int> ParseCount(absl::string_view option, const std::string& text) {
  int value;
  if (!absl::SimpleAtoi(text, &value) || value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(option, " needs a number >= 0, not '", text, "'"));
  }
  return value;
}

}  // namespace protond::text
