#include "common/ring/ring_layout.h"

#include "absl/strings/str_cat.h"

namespace protond::ring {

absl::Status ValidateGeometry(const RegionGeometry& g) {
  if (g.lane_count == 0 || g.lane_count > kMaxLaneCount) {
    return absl::InvalidArgumentError(
        absl::StrCat("lane count ", g.lane_count, " is outside [1, ", kMaxLaneCount, "]"));
  }
  const bool power_of_two = (g.lane_data_bytes & (g.lane_data_bytes - 1)) == 0;
  if (!power_of_two || g.lane_data_bytes < kMinLaneDataBytes ||
      g.lane_data_bytes > kMaxLaneDataBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("lane size ", g.lane_data_bytes, " bytes is not a power of two in [",
                     kMinLaneDataBytes, ", ", kMaxLaneDataBytes, "]"));
  }
  return absl::OkStatus();
}

}  // namespace protond::ring
