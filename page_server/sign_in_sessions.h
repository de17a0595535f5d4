// The browsers signed in to protond's page (protond --web-listen): each sign-in gets a random key
// from the kernel's CSPRNG, which the browser keeps as its cookie, mapped in memory to who signed
// in and until when. The token a user signed in with is never kept: a key is worth nothing after
// its expiry, a sign-out or a restart of the daemon. Only a SHA-256 of each key is kept, so a
// lookup's timing says nothing about the keys, and memory holds no usable cookie.
// Thread-safe: civetweb's threads sign in, look up and sign out at once.
#ifndef PROTOND_PAGE_SERVER_SIGN_IN_SESSIONS_H_
#define PROTOND_PAGE_SERVER_SIGN_IN_SESSIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace protond::page_server {

// Who a sign-in's token stands for (as protond's token table says).
struct SignedInUser {
  uint32_t uid = 0;
  std::vector<std::string> jobs;  // the token's job limit; empty: none
  bool operator==(const SignedInUser&) const = default;
};

class SignInSessions {
 public:
  // At most this many sign-ins at once; expired ones are dropped first.
  static constexpr size_t kMaxSignIns = 1024;

  // A new key (64 hex digits) for `user` until `expires`; RESOURCE_EXHAUSTED when kMaxSignIns
  // sign-ins are live at `now`, INTERNAL when the kernel gives no random bytes.
  absl::StatusOr<std::string> SignIn(const SignedInUser& user, absl::Time expires, absl::Time now);
  // Who `key_untrusted` (a cookie's value) signed in as, if it is a live key at `now`.
  std::optional<SignedInUser> Find(absl::string_view key_untrusted, absl::Time now);
  // Forgets the key; nothing happens for an unknown one.
  void SignOut(absl::string_view key_untrusted);
  // Forgets every key (protond read its tokens again: a key does not say whose token it was).
  void SignOutAll();

  size_t size();

 private:
  struct LiveSignIn {
    SignedInUser user;
    absl::Time expires;
  };
  void DropExpiredLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  absl::Mutex mutex_;
  std::map<std::string, LiveSignIn> by_key_hash_ ABSL_GUARDED_BY(mutex_);  // SHA-256 of the key
};

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_SIGN_IN_SESSIONS_H_
