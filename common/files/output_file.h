// Files whose path a user named: `protonctl export -o PATH`, the profile Python's finalize()
// writes (through the control library), protond's pid file in its --state-dir. These programs
// run as root on shared nodes, so such a path is never a way to clobber what is not a regular
// file (/dev/null replaced by a file), nor to write through a link someone else planted.
//
// The one implementation of those rules, used by protond, protonctl and the control library:
//   "-", /dev/stdout, /dev/stderr   written to the process's own stream
//   a character device or a FIFO    written into (it is never created, truncated or replaced)
//   nothing at the path             a new file, complete or absent: written to a temporary file
//                                   beside it, then renamed to the path
//   a regular file (or a link)      AlreadyExistsError, unless ExistingFile::kReplace: then
//                                   replaced the same way, atomically (readers see the old file
//                                   or the whole new one)
//   a directory, block device, socket   refused, naming it (FailedPreconditionError)
// The temporary file gets an unpredictable name and is created with O_EXCL, so a link planted
// at its name is never followed. A failed write names the path and the reason ("cannot write
// /dev/full: No space left on device").
#ifndef PROTOND_COMMON_FILES_OUTPUT_FILE_H_
#define PROTOND_COMMON_FILES_OUTPUT_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace protond::files {

// What becomes of a regular file already at the path.
enum class ExistingFile { kKeep, kReplace };

// The error WriteOutputFile would give `path` before writing anything (a file that exists, a
// directory): checked before the work of an export, so that a long export does not end in it.
absl::Status CheckOutputPath(const std::string& path, ExistingFile existing);

// Writes `contents` to `path` by the rules above.
absl::Status WriteOutputFile(const std::string& path, std::string_view contents,
                             ExistingFile existing);

}  // namespace protond::files

#endif  // PROTOND_COMMON_FILES_OUTPUT_FILE_H_
