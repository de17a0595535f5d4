// A positive whole number followed by one of a few unit suffixes, as people type durations
// (duration.h) and sizes (protond --history-max) on a command line: one reading for both.
#ifndef PROTOND_COMMON_TEXT_SCALED_NUMBER_H_
#define PROTOND_COMMON_TEXT_SCALED_NUMBER_H_

#include <cstdint>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace protond::text {

// A suffix and how many base units it stands for.
using Unit = std::pair<absl::string_view, uint64_t>;

// `text` as a number of base units: digits then one of `units` (the first suffix that ends the
// text wins, so list "ms" before "s"), or digits alone, worth `bare_unit` each. nullopt for zero,
// anything else, or a value past uint64.
std::optional<uint64_t> ParseScaledNumber(absl::string_view text, absl::Span<const Unit> units,
                                          uint64_t bare_unit);

// "64KiB", "500MiB", "2GiB", "1TiB" (powers of 1024), or a bare number of bytes; more than zero.
// INVALID_ARGUMENT naming the text otherwise.
absl::StatusOr<uint64_t> ParseByteSize(absl::string_view text);

}  // namespace protond::text

#endif  // PROTOND_COMMON_TEXT_SCALED_NUMBER_H_
