// How many wrong tokens protond's sign-in form takes (protond --web-listen): at most
// kMaxFailuresPerCaller in any kWindow from one caller's address, and kMaxFailuresOverall from all
// callers together. Past the first, that address's sign-ins are refused until its oldest failure
// leaves the window, right token or not; past the second (a guesser with many addresses), every
// caller's are. A token has at least 16 characters, so guessing one is hopeless anyway; the
// throttle keeps a guesser from burning CPU on TLS handshakes and token checks, makes a guess
// visible in protond's log, and lets other callers sign in meanwhile.
// The caller is the address the connection came from (Request::peer_address: the TLS front's
// peer, never a header); an IPv6 address counts by its /64, which one host commonly holds whole
// (an IPv4 address mapped into IPv6 counts as itself). Memory is bounded: an address is kept only
// while it has a failure in the window, and no failure is kept once the overall cap is reached, so
// at most kMaxFailuresOverall addresses are kept whatever the number of addresses a guesser has.
// Thread-safe.
#ifndef PROTOND_PAGE_SERVER_SIGN_IN_THROTTLE_H_
#define PROTOND_PAGE_SERVER_SIGN_IN_THROTTLE_H_

#include <deque>
#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace protond::page_server {

// What the throttle counts a peer address as: "2001:db8:1:2::/64" for an IPv6 address, the
// address itself otherwise (IPv4, IPv4 mapped into IPv6, or text that is no address).
std::string ThrottledCaller(const std::string& peer_address);

class SignInThrottle {
 public:
  static constexpr int kMaxFailuresPerCaller = 10;
  static constexpr int kMaxFailuresOverall = 100;
  static constexpr absl::Duration kWindow = absl::Minutes(1);

  // Which limit a failure reached, for a log line once per closing (not one per guess).
  enum class Closed { kNothing, kCaller, kEveryone };

  // `caller`: a peer address, counted as ThrottledCaller says.
  // Nothing when `caller` may try a sign-in at `now`; else how long until it may.
  std::optional<absl::Duration> WaitBefore(const std::string& caller, absl::Time now)
      ABSL_LOCKS_EXCLUDED(mutex_);
  // A sign-in from `caller` with a wrong token at `now`.
  Closed Failed(const std::string& caller, absl::Time now) ABSL_LOCKS_EXCLUDED(mutex_);

  // How many addresses are kept (for the test of the bound).
  size_t callers_kept() ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  void DropOldLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  absl::Mutex mutex_;
  // Within kWindow, oldest first: every caller's, and each caller's with one at least.
  std::deque<absl::Time> all_failures_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, std::deque<absl::Time>> failures_by_caller_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_SIGN_IN_THROTTLE_H_
