#include "cli/follow.h"

#include <algorithm>

#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

// Sleeps `interval` in steps of 50 ms; false as soon as `keep_going` says to stop.
bool SleepUnlessStopped(absl::Duration interval, const std::function<bool()>& keep_going) {
  const absl::Time end = absl::Now() + interval;
  while (absl::Now() < end) {
    if (!keep_going()) return false;
    absl::SleepFor(std::min(absl::Milliseconds(50), end - absl::Now()));
  }
  return keep_going();
}

}  // namespace

absl::Status FollowFrames(absl::Duration interval,
                          const std::function<absl::StatusOr<FollowFrame>()>& next,
                          const std::function<bool()>& keep_going,
                          const std::function<void(const std::string& frame)>& show) {
  while (true) {
    ASSIGN_OR_RETURN(const FollowFrame frame, next());
    show(frame.text);
    if (!frame.recording || !SleepUnlessStopped(interval, keep_going)) return absl::OkStatus();
  }
}

}  // namespace protond::cli
