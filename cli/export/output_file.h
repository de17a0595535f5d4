// Where `protonctl export` writes: a file that is complete or absent, never half written, and
// never one that already existed unless the user said --force.
#ifndef PROTOND_CLI_EXPORT_OUTPUT_FILE_H_
#define PROTOND_CLI_EXPORT_OUTPUT_FILE_H_

#include <string>

#include "absl/status/status.h"

namespace protond::cli {

// AlreadyExistsError naming `path` when it exists and `force` is false. Checked before the work
// of an export, so a long export does not end in this error.
absl::Status CheckOutputPath(const std::string& path, bool force);

// Writes `contents` to a temporary file beside `path` and renames it to `path`: readers see the
// old file or the whole new one. Without `force` the rename refuses to replace a file that
// appeared meanwhile (AlreadyExistsError).
absl::Status WriteOutputFile(const std::string& path, const std::string& contents, bool force);

}  // namespace protond::cli

#endif  // PROTOND_CLI_EXPORT_OUTPUT_FILE_H_
