#include "page_server/token.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace protond::page_server {

absl::StatusOr<std::string> NewToken() {
  char bytes[kTokenBytes];
  size_t filled = 0;
  while (filled < sizeof(bytes)) {
    const ssize_t got = getrandom(bytes + filled, sizeof(bytes) - filled, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return absl::InternalError(absl::StrCat("getrandom: ", std::strerror(errno)));
    }
    filled += static_cast<size_t>(got);
  }
  return absl::BytesToHexString(absl::string_view(bytes, sizeof(bytes)));
}

bool SameToken(absl::string_view offered_untrusted, absl::string_view token) {
  if (offered_untrusted.size() != token.size()) return false;
  // Every byte is looked at, whatever the first difference: no early exit for a timing to show.
  volatile unsigned char difference = 0;
  for (size_t i = 0; i < token.size(); ++i) {
    difference = difference | static_cast<unsigned char>(offered_untrusted[i] ^ token[i]);
  }
  return difference == 0;
}

}  // namespace protond::page_server
