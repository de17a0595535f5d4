// A session's mode: what the profiled process collects beyond the call tree. It is Proton's
// `mode` string, of which protond knows "" (scopes and GPU activity only) and "pcsampling"
// (also CUPTI PC samples with stall reasons, docs/pc-sampling.md), optionally with an interval
// in cycles: "pcsampling:interval=4096". Proton's mode.PCSampling prints itself as
// "pc_sampling:interval=N", which is accepted too. The same parser checks the mode in protonctl,
// the Python package (through the shim) and the daemon, so all three refuse the same strings
// with the same message.
#ifndef PROTOND_COMMON_MODE_SESSION_MODE_H_
#define PROTOND_COMMON_MODE_SESSION_MODE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::mode {

// CUPTI samples every 2^N cycles, 5 <= N <= 31; an interval is rounded to the nearest such
// power of two.
inline constexpr uint32_t kMinPcSamplingPeriodLog2 = 5;
inline constexpr uint32_t kMaxPcSamplingPeriodLog2 = 31;

struct SessionMode {
  bool pc_sampling = false;
  // log2 of the sampling interval in cycles; 0: CUPTI's default (which depends on the GPU).
  uint32_t pc_sampling_period_log2 = 0;

  bool operator==(const SessionMode&) const = default;
};

// INVALID_ARGUMENT naming what is wrong: an unknown mode, an unknown option, an interval that is
// not a positive integer.
absl::StatusOr<SessionMode> ParseSessionMode(absl::string_view text);

// The canonical text of `mode`, which ParseSessionMode reads back: "", "pcsampling" or
// "pcsampling:interval=1024".
std::string SessionModeText(const SessionMode& mode);

}  // namespace protond::mode

#endif  // PROTOND_COMMON_MODE_SESSION_MODE_H_
