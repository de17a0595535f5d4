#include "common/paths/own_path.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace protond::paths {
namespace {

// Where the kernel says the running program is (symbolic links resolved).
std::string ExecutablePath() {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path));
  return length > 0 && length < static_cast<ssize_t>(sizeof(path)) ? std::string(path, length) : "";
}

// The absolute path of the file mapped at `address`, from /proc/self/maps.
std::string MappedFilePath(const void* address) {
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return "";
  const auto wanted = reinterpret_cast<uintptr_t>(address);
  std::string found;
  char line[4096 + 128];
  while (found.empty() && std::fgets(line, sizeof(line), maps) != nullptr) {
    uintptr_t start = 0, end = 0;
    int path_offset = -1;
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %*s %*s %*s %n", &start, &end,
                    &path_offset) == 2 &&
        path_offset > 0 && start <= wanted && wanted < end && line[path_offset] == '/') {
      found.assign(line + path_offset, std::strcspn(line + path_offset, "\n"));
    }
  }
  std::fclose(maps);
  return found;
}

}  // namespace

std::string OwnLibraryPath() {
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&OwnLibraryPath), &info, reinterpret_cast<void**>(&map),
              RTLD_DL_LINKMAP) == 0 ||
      map == nullptr) {
    return "";
  }
  // Linked into the program itself (protonctl): dladdr would name argv[0], a bare "protonctl"
  // when PATH found it, which anyone resolving it would take from the working directory.
  if (map->l_name[0] == '\0') return ExecutablePath();
  if (map->l_name[0] == '/') return map->l_name;
  // Loaded by a relative name ("./libprotond_shim.so" in LD_PRELOAD): relative to the working
  // directory of that moment, which the program may have left since.
  return MappedFilePath(reinterpret_cast<void*>(&OwnLibraryPath));
}

std::string SiblingLibraryPath(const char* file_name) {
  const std::string self = OwnLibraryPath();
  const size_t slash = self.rfind('/');
  return slash == std::string::npos ? file_name : self.substr(0, slash + 1) + file_name;
}

std::string InstalledShimPath() {
  std::error_code error;
  if (const char* shim = std::getenv("PROTOND_SHIM"); shim != nullptr && *shim != '\0') {
    return std::filesystem::absolute(shim, error).lexically_normal().string();
  }
  const std::filesystem::path self = std::filesystem::path(OwnLibraryPath()).parent_path();
  for (const auto& candidate : {self / "libprotond_shim.so", self / "../lib/libprotond_shim.so"}) {
    if (std::filesystem::exists(candidate, error)) return candidate.lexically_normal().string();
  }
  return "";
}

}  // namespace protond::paths
