#include "shim/loading/sibling_library.h"

#include <dlfcn.h>

#include "common/paths/own_path.h"

namespace protond::shim {

const void* LoadSiblingApi(const char* file_name, const char* api_symbol, std::string* error) {
  const std::string path = paths::SiblingLibraryPath(file_name);
  // RTLD_LOCAL: the library's own dependencies (gRPC, CUPTI) stay private to it.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto get_api = library != nullptr
                     ? reinterpret_cast<const void* (*)()>(dlsym(library, api_symbol))
                     : nullptr;
  const void* api = get_api != nullptr ? get_api() : nullptr;
  if (api == nullptr) {
    const char* reason = dlerror();
    *error = "cannot load " + path + ": " + (reason != nullptr ? reason : "no API");
  }
  return api;
}

}  // namespace protond::shim
