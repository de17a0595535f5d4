#include "common/text/session_name.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/text/printable_text.h"
#include "common/text/utf8.h"

namespace protond::text {

absl::Status CheckSessionName(absl::string_view name) {
  if (name.size() > kMaxSessionNameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("session name is ", name.size(), " bytes, more than ", kMaxSessionNameBytes));
  }
  if (const size_t at = FindInvalidUtf8(name); at != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrFormat("session name has invalid UTF-8 at byte %d (0x%02x); use UTF-8 text", at,
                        static_cast<unsigned char>(name[at])));
  }
  if (const size_t at = FindControlCharacter(name); at != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("session name '", PrintableText(name),
                                                   "' has a control character at byte ", at,
                                                   "; use printable text"));
  }
  return absl::OkStatus();
}

}  // namespace protond::text
