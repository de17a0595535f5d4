// --follow, shared by the commands that have it (tree, job): a view redrawn every so often while
// what it shows is still recording, then once more with everything.
#ifndef PROTOND_CLI_FOLLOW_H_
#define PROTOND_CLI_FOLLOW_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace protond::cli {

struct FollowFrame {
  std::string text;
  bool recording = false;  // another frame follows after the interval
};

// Shows `next()`'s frames every `interval` until one is not recording (shown as the last), or
// until `keep_going` returns false (asked every 50 ms while waiting; that ends with OK too). An
// error from `next` ends it with that error.
absl::Status FollowFrames(absl::Duration interval,
                          const std::function<absl::StatusOr<FollowFrame>()>& next,
                          const std::function<bool()>& keep_going,
                          const std::function<void(const std::string& frame)>& show);

}  // namespace protond::cli

#endif  // PROTOND_CLI_FOLLOW_H_
