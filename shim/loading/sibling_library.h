// Where the shim finds the libraries it loads on demand (the control channel, the GPU tracer),
// and autostart the protond it runs: beside itself, so that a bundle works wherever it is
// unpacked.
#ifndef PROTOND_SHIM_LOADING_SIBLING_LIBRARY_H_
#define PROTOND_SHIM_LOADING_SIBLING_LIBRARY_H_

#include <string>

namespace protond::shim {

// The absolute path of the file this code is linked into: the library, or the program's
// /proc/self/exe when it is linked into a program (protonctl); empty if unknown. Never taken from
// argv[0] or the working directory.
std::string OwnLibraryPath();

// The path of `file_name` in the directory of the file this code is linked into; the bare name
// (searched by the dynamic loader) if that directory is unknown.
std::string SiblingLibraryPath(const char* file_name);

// Loads `file_name` from beside the shim with RTLD_NOW | RTLD_LOCAL and returns what its
// `api_symbol` function returns, or nullptr with the reason in `error`.
const void* LoadSiblingApi(const char* file_name, const char* api_symbol, std::string* error);

}  // namespace protond::shim

#endif  // PROTOND_SHIM_LOADING_SIBLING_LIBRARY_H_
