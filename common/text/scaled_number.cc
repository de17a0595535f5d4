#include "common/text/scaled_number.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace protond::text {

std::optional<uint64_t> ParseScaledNumber(absl::string_view text, absl::Span<const Unit> units,
                                          uint64_t bare_unit) {
  absl::string_view number = text;
  uint64_t unit = bare_unit;
  for (const auto& [suffix, worth] : units) {
    if (text.size() > suffix.size() && absl::EndsWith(text, suffix)) {
      number = text.substr(0, text.size() - suffix.size());
      unit = worth;
      break;
    }
  }
  uint64_t value;
  // SimpleAtoi takes a sign and spaces: only digits are a number here.
  if (number.empty() || number.find_first_not_of("0123456789") != absl::string_view::npos ||
      !absl::SimpleAtoi(number, &value) || value == 0 || value > UINT64_MAX / unit) {
    return std::nullopt;
  }
  return value * unit;
}

absl::StatusOr<uint64_t> ParseByteSize(absl::string_view text) {
  constexpr Unit kUnits[] = {{"KiB", uint64_t{1} << 10},
                             {"MiB", uint64_t{1} << 20},
                             {"GiB", uint64_t{1} << 30},
                             {"TiB", uint64_t{1} << 40},
                             {"B", 1}};
  const std::optional<uint64_t> bytes = ParseScaledNumber(text, kUnits, /*bare_unit=*/1);
  if (!bytes.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text,
                     "' is not a size (a positive number with KiB, MiB, GiB or TiB; a bare "
                     "number is bytes)"));
  }
  return *bytes;
}

}  // namespace protond::text
