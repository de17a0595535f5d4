#include "view/jobs/time_text.h"

#include "absl/strings/str_format.h"

namespace protond::view {

std::string FormatTimeNs(double ns) {
  const double ms = ns / 1e6;
  if (ms >= 10'000) return absl::StrFormat("%.1f s", ms / 1000);
  if (ms >= 100) return absl::StrFormat("%.0f ms", ms);
  if (ms >= 10) return absl::StrFormat("%.1f ms", ms);
  if (ms >= 1) return absl::StrFormat("%.2f ms", ms);
  return absl::StrFormat("%.3f ms", ms);
}

}  // namespace protond::view
