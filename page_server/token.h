// The secret of one `protonctl ui`: who holds it may read the user's profiles through the page.
// Made from the kernel's random bytes, compared in constant time, never logged.
#ifndef PROTOND_PAGE_SERVER_TOKEN_H_
#define PROTOND_PAGE_SERVER_TOKEN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::page_server {

inline constexpr size_t kTokenBytes = 32;

// kTokenBytes from getrandom(2), as 64 lower-case hex digits; InternalError naming errno's
// message when the kernel gives none.
absl::StatusOr<std::string> NewToken();

// Whether `offered_untrusted` is `token`, in time that depends on `token`'s length only (a
// different length is refused at once: every token has the same, public, length).
bool SameToken(absl::string_view offered_untrusted, absl::string_view token);

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_TOKEN_H_
