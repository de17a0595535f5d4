#include "common/mode/session_mode.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace protond::mode {
namespace {

constexpr char kKnown[] = "known: \"\" and \"pcsampling[:interval=CYCLES]\"";

// The power of two nearest to `cycles`, as its log2, within CUPTI's range.
uint32_t NearestPeriodLog2(uint64_t cycles) {
  const uint32_t below = 63 - std::countl_zero(cycles);  // cycles >= 1
  const uint64_t low = uint64_t{1} << below;
  const uint32_t nearest = cycles - low < low * 2 - cycles ? below : below + 1;
  return std::clamp(nearest, kMinPcSamplingPeriodLog2, kMaxPcSamplingPeriodLog2);
}

absl::Status ApplyPcSamplingOption(absl::string_view option, SessionMode& mode) {
  absl::string_view value = option;
  uint64_t cycles = 0;
  if (!absl::ConsumePrefix(&value, "interval=")) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown pcsampling option '", option, "' (known: interval=CYCLES)"));
  }
  if (!absl::SimpleAtoi(value, &cycles) || cycles == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pcsampling interval must be a positive integer (cycles between samples), not '", value,
        "'"));
  }
  mode.pc_sampling_period_log2 = NearestPeriodLog2(cycles);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SessionMode> ParseSessionMode(absl::string_view text) {
  SessionMode mode;
  if (text.empty()) return mode;
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  if (parts[0] != "pcsampling" && parts[0] != "pc_sampling") {
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", text, "' (", kKnown, ")"));
  }
  mode.pc_sampling = true;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (absl::Status status = ApplyPcSamplingOption(parts[i], mode); !status.ok()) return status;
  }
  return mode;
}

std::string SessionModeText(const SessionMode& mode) {
  if (!mode.pc_sampling) return "";
  if (mode.pc_sampling_period_log2 == 0) return "pcsampling";
  return absl::StrCat("pcsampling:interval=", uint64_t{1} << mode.pc_sampling_period_log2);
}

}  // namespace protond::mode
