#include "common/files/read_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace protond::files {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) return absl::ErrnoToStatus(errno, absl::StrCat(what, " ", path));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::ErrnoToStatus(errno, absl::StrCat("reading ", what, " ", path));
  return text.str();
}

absl::StatusOr<std::string> ReadPrivateFile(const std::string& path, const std::string& what) {
  struct stat file;
  if (stat(path.c_str(), &file) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat(what, " ", path));
  }
  if ((file.st_mode & 077) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(what, " ", path, " may be read or written by others (mode ",
                     absl::StrFormat("%04o", file.st_mode & 07777), "); chmod 600 ", path));
  }
  return ReadWholeFile(path, what);
}

}  // namespace protond::files
