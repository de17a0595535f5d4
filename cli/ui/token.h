// The secret of one `protonctl ui`: who holds it may read the user's profiles through the page.
// Made from the kernel's random bytes, compared in constant time, never logged.
#ifndef PROTOND_CLI_UI_TOKEN_H_
#define PROTOND_CLI_UI_TOKEN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::cli::ui {

inline constexpr size_t kTokenBytes = 32;

// kTokenBytes from getrandom(2), as 64 lower-case hex digits; InternalError naming errno's
// message when the kernel gives none.
absl::StatusOr<std::string> NewToken();

// Whether `offered_untrusted` is `token`, in time that depends on `token`'s length only (a
// different length is refused at once: every token has the same, public, length).
bool SameToken(absl::string_view offered_untrusted, absl::string_view token);

}  // namespace protond::cli::ui

#endif  // PROTOND_CLI_UI_TOKEN_H_
