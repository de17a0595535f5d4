#include "page_server/sign_in_throttle.h"

namespace protond::page_server {

void SignInThrottle::DropOldLocked(absl::Time now) {
  while (!failures_.empty() && now - failures_.front() >= kWindow) failures_.pop_front();
}

std::optional<absl::Duration> SignInThrottle::WaitBefore(absl::Time now) {
  absl::MutexLock lock(&mutex_);
  DropOldLocked(now);
  if (failures_.size() < static_cast<size_t>(kMaxFailures)) return std::nullopt;
  return failures_.front() + kWindow - now;
}

bool SignInThrottle::Failed(absl::Time now) {
  absl::MutexLock lock(&mutex_);
  DropOldLocked(now);
  failures_.push_back(now);
  return failures_.size() == static_cast<size_t>(kMaxFailures);
}

}  // namespace protond::page_server
