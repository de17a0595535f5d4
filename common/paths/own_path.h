// Where the file this code is linked into lies, and the files beside it: how the shim finds the
// libraries it loads on demand (the control channel, the GPU tracer), and autostart the protond it
// runs, so that a bundle works wherever it is unpacked.
#ifndef PROTOND_COMMON_PATHS_OWN_PATH_H_
#define PROTOND_COMMON_PATHS_OWN_PATH_H_

#include <string>

namespace protond::paths {

// The absolute path of the file this code is linked into: the library, or the program's
// /proc/self/exe when it is linked into a program (protonctl); empty if unknown. Never taken from
// argv[0] or the working directory.
std::string OwnLibraryPath();

// The path of `file_name` in the directory of the file this code is linked into; the bare name
// (searched by the dynamic loader) if that directory is unknown.
std::string SiblingLibraryPath(const char* file_name);

// The shim a program of protond's (protonctl run, protond's attach) loads into others: the
// absolute $PROTOND_SHIM if set, else libprotond_shim.so beside the file this code is linked into
// or in ../lib from there; "" when none exists.
std::string InstalledShimPath();

}  // namespace protond::paths

#endif  // PROTOND_COMMON_PATHS_OWN_PATH_H_
