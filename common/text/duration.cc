#include "common/text/duration.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace protond::text {

absl::StatusOr<uint64_t> ParseDurationMs(absl::string_view text) {
  constexpr std::pair<absl::string_view, uint64_t> kUnits[] = {
      {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}};
  absl::string_view number = text;
  uint64_t unit_ms = 1000;  // a bare number is seconds
  for (const auto& [suffix, ms] : kUnits) {
    if (text.size() > suffix.size() && absl::EndsWith(text, suffix)) {
      number = text.substr(0, text.size() - suffix.size());
      unit_ms = ms;
      break;
    }
  }
  uint64_t value;
  if (!absl::SimpleAtoi(number, &value) || value == 0 || value > UINT64_MAX / unit_ms) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text,
                     "' is not a duration (a positive number with ms, s, m or h; a bare "
                     "number is seconds)"));
  }
  return value * unit_ms;
}

}  // namespace protond::text
