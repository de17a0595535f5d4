#include "shim/loading/sibling_library.h"

#include <dlfcn.h>

namespace protond::shim {

std::string OwnLibraryPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&OwnLibraryPath), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  return info.dli_fname;
}

std::string SiblingLibraryPath(const char* file_name) {
  const std::string self = OwnLibraryPath();
  const size_t slash = self.rfind('/');
  return slash == std::string::npos ? file_name : self.substr(0, slash + 1) + file_name;
}

const void* LoadSiblingApi(const char* file_name, const char* api_symbol, std::string* error) {
  const std::string path = SiblingLibraryPath(file_name);
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
