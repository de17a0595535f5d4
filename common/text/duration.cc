#include "common/text/duration.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "common/text/scaled_number.h"

namespace protond::text {

absl::StatusOr<uint64_t> ParseDurationMs(absl::string_view text) {
  constexpr Unit kUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"d", 86400000}};
  const std::optional<uint64_t> ms = ParseScaledNumber(text, kUnits, /*bare_unit=*/1000);
  if (!ms.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text,
                     "' is not a duration (a positive number with ms, s, m, h or d; a bare "
                     "number is seconds)"));
  }
  return *ms;
}

}  // namespace protond::text
