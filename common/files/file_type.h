// The words for what kind of file a path holds, as messages that refuse it say them ("PATH is a
// regular file, not protond's socket"; "PATH is a directory").
#ifndef PROTOND_COMMON_FILES_FILE_TYPE_H_
#define PROTOND_COMMON_FILES_FILE_TYPE_H_

#include <sys/types.h>

namespace protond::files {

// "a regular file", "a directory", "a symbolic link", "a FIFO", "a character device",
// "a block device", "a socket", or "an unknown kind of file", for a stat() st_mode.
const char* FileTypeName(mode_t mode);

}  // namespace protond::files

#endif  // PROTOND_COMMON_FILES_FILE_TYPE_H_
