// Loading the libraries the shim needs only on demand (the control channel, the GPU tracer) from
// beside the shim (common/paths/own_path.h), so that a bundle works wherever it is unpacked.
#ifndef PROTOND_SHIM_LOADING_SIBLING_LIBRARY_H_
#define PROTOND_SHIM_LOADING_SIBLING_LIBRARY_H_

#include <string>

namespace protond::shim {

// Loads `file_name` from beside the shim with RTLD_NOW | RTLD_LOCAL and returns what its
// `api_symbol` function returns, or nullptr with the reason in `error`.
const void* LoadSiblingApi(const char* file_name, const char* api_symbol, std::string* error);

}  // namespace protond::shim

#endif  // PROTOND_SHIM_LOADING_SIBLING_LIBRARY_H_
