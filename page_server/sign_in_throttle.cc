#include "page_server/sign_in_throttle.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace protond::page_server {
namespace {

void DropBefore(std::deque<absl::Time>& failures, absl::Time now, absl::Duration window) {
  while (!failures.empty() && now - failures.front() >= window) failures.pop_front();
}

// Nothing while `failures` holds fewer than `limit`; else until the oldest leaves the window.
std::optional<absl::Duration> WaitFor(const std::deque<absl::Time>& failures, size_t limit,
                                      absl::Time now, absl::Duration window) {
  if (failures.size() < limit) return std::nullopt;
  return failures.front() + window - now;
}

}  // namespace

std::string ThrottledCaller(const std::string& peer_address) {
  in6_addr address;
  if (inet_pton(AF_INET6, peer_address.c_str(), &address) != 1 || IN6_IS_ADDR_V4MAPPED(&address)) {
    return peer_address;
  }
  std::memset(&address.s6_addr[8], 0, 8);
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, &address, text, sizeof(text));
  return std::string(text) + "/64";
}

void SignInThrottle::DropOldLocked(absl::Time now) {
  DropBefore(all_failures_, now, kWindow);
  for (auto it = failures_by_caller_.begin(); it != failures_by_caller_.end();) {
    DropBefore(it->second, now, kWindow);
    it = it->second.empty() ? failures_by_caller_.erase(it) : std::next(it);
  }
}

std::optional<absl::Duration> SignInThrottle::WaitBefore(const std::string& caller,
                                                         absl::Time now) {
  absl::MutexLock lock(&mutex_);
  DropOldLocked(now);
  std::optional<absl::Duration> wait = WaitFor(all_failures_, kMaxFailuresOverall, now, kWindow);
  const auto found = failures_by_caller_.find(ThrottledCaller(caller));
  if (found == failures_by_caller_.end()) return wait;
  const std::optional<absl::Duration> caller_wait =
      WaitFor(found->second, kMaxFailuresPerCaller, now, kWindow);
  if (!wait.has_value()) return caller_wait;
  if (!caller_wait.has_value()) return wait;
  return std::max(*wait, *caller_wait);
}

SignInThrottle::Closed SignInThrottle::Failed(const std::string& caller, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  DropOldLocked(now);
  // Closed already (a sign-in that passed WaitBefore on another thread meanwhile): keeping it
  // would let the table grow past the cap.
  if (all_failures_.size() >= static_cast<size_t>(kMaxFailuresOverall)) return Closed::kNothing;
  all_failures_.push_back(now);
  std::deque<absl::Time>& mine = failures_by_caller_[ThrottledCaller(caller)];
  mine.push_back(now);
  if (all_failures_.size() == static_cast<size_t>(kMaxFailuresOverall)) return Closed::kEveryone;
  if (mine.size() == static_cast<size_t>(kMaxFailuresPerCaller)) return Closed::kCaller;
  return Closed::kNothing;
}

size_t SignInThrottle::callers_kept() {
  absl::MutexLock lock(&mutex_);
  return failures_by_caller_.size();
}

}  // namespace protond::page_server
