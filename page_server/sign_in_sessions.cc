#include "page_server/sign_in_sessions.h"

#include <openssl/sha.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "page_server/token.h"

namespace protond::page_server {
namespace {

std::string KeyHash(absl::string_view key) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof(digest));
}

}  // namespace

absl::StatusOr<std::string> SignInSessions::SignIn(const SignedInUser& user, absl::Time expires,
                                                   absl::Time now) {
  absl::StatusOr<std::string> key = NewToken();
  if (!key.ok()) return key.status();
  absl::MutexLock lock(&mutex_);
  DropExpiredLocked(now);
  if (by_key_hash_.size() >= kMaxSignIns) {
    return absl::ResourceExhaustedError(absl::StrCat("too many sign-ins to protond's page (",
                                                     kMaxSignIns, "): sign out of another first"));
  }
  by_key_hash_[KeyHash(*key)] = {user, expires};
  return key;
}

std::optional<SignedInUser> SignInSessions::Find(absl::string_view key_untrusted, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  const auto found = by_key_hash_.find(KeyHash(key_untrusted));
  if (found == by_key_hash_.end()) return std::nullopt;
  if (now >= found->second.expires) {
    by_key_hash_.erase(found);
    return std::nullopt;
  }
  return found->second.user;
}

void SignInSessions::SignOut(absl::string_view key_untrusted) {
  absl::MutexLock lock(&mutex_);
  by_key_hash_.erase(KeyHash(key_untrusted));
}

void SignInSessions::SignOutAll() {
  absl::MutexLock lock(&mutex_);
  by_key_hash_.clear();
}

size_t SignInSessions::size() {
  absl::MutexLock lock(&mutex_);
  return by_key_hash_.size();
}

void SignInSessions::DropExpiredLocked(absl::Time now) {
  for (auto it = by_key_hash_.begin(); it != by_key_hash_.end();) {
    it = now >= it->second.expires ? by_key_hash_.erase(it) : std::next(it);
  }
}

}  // namespace protond::page_server
