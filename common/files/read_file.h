// Whole small files read into memory, with errors that name what the file is for: configuration
// and secrets of protond and protonctl (tokens, certificates), and /proc's files of processes that
// may end while they are read. A secret must be private to its owner (no access for group or
// others), as ssh demands of its keys. Read with read(2), never iostreams: libstdc++'s filebuf
// throws when a read fails (ESRCH from /proc once the process is gone), which ended protond.
#ifndef PROTOND_COMMON_FILES_READ_FILE_H_
#define PROTOND_COMMON_FILES_READ_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace protond::files {

// The contents of `path`; an error starts with `what` and the path ("--tls-ca ca.pem: ...").
absl::StatusOr<std::string> ReadWholeFile(const std::string& path, const std::string& what);

// Everything left to read from `fd`; an error says "reading `what`".
absl::StatusOr<std::string> ReadFromFd(int fd, const std::string& what);

// The same, refused with PERMISSION_DENIED (and the chmod that fixes it) when group or others
// may read or write the file.
absl::StatusOr<std::string> ReadPrivateFile(const std::string& path, const std::string& what);

}  // namespace protond::files

#endif  // PROTOND_COMMON_FILES_READ_FILE_H_
