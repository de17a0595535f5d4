// How many wrong tokens protond's sign-in form takes (protond --web-listen): at most
// kMaxFailures in any kWindow, from all callers together; past that, every sign-in is refused
// until the oldest failure leaves the window, right token or not. A token has at least 16
// characters, so guessing one is hopeless anyway; the throttle keeps a guesser from burning CPU
// on TLS handshakes and token checks, and makes a guess visible in protond's log.
// All callers together, because behind the TLS front every connection comes from the loopback
// address: the caller's own address is not known here. So a flood of wrong tokens also keeps
// others from signing in for a minute (not from pages already signed in, nor from the TCP API).
// Thread-safe.
#ifndef PROTOND_PAGE_SERVER_SIGN_IN_THROTTLE_H_
#define PROTOND_PAGE_SERVER_SIGN_IN_THROTTLE_H_

#include <deque>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace protond::page_server {

class SignInThrottle {
 public:
  static constexpr int kMaxFailures = 10;
  static constexpr absl::Duration kWindow = absl::Minutes(1);

  // Nothing when a sign-in may be tried at `now`; else how long until one may.
  std::optional<absl::Duration> WaitBefore(absl::Time now) ABSL_LOCKS_EXCLUDED(mutex_);
  // A sign-in with a wrong token at `now`. True when this failure is the one that closes the
  // throttle (for a log line once per closing, not one per guess).
  bool Failed(absl::Time now) ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  void DropOldLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  absl::Mutex mutex_;
  std::deque<absl::Time> failures_ ABSL_GUARDED_BY(mutex_);  // within kWindow, oldest first
};

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_SIGN_IN_THROTTLE_H_
