// A program linked with the shim's front (front_test.cc runs it): says whether the core is mapped
// into it after what its arguments ask, in order:
//   --wait MS   sleep
//   --call      one call of the C ABI (protond_scope_enter), and its result
//   --fork      the rest in a forked child (the parent waits for it)
//   --nccl      what NCCL does at a communicator's creation: load the library
//               NCCL_PROFILER_PLUGIN names, find ncclProfiler_v5, call its init and finalize
// then prints "core: yes|no" and protond_last_error().
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "protond/shim.h"
#include "shim/nccl/nccl_profiler_abi.h"

namespace {

void ActAsNccl() {
  const char* path = getenv("NCCL_PROFILER_PLUGIN");
  printf("nccl plugin: %s\n", path != nullptr ? path : "(unset)");
  void* library = path != nullptr ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  const auto* plugin =
      library != nullptr
          ? static_cast<const protond_nccl_profiler_v5*>(dlsym(library, "ncclProfiler_v5"))
          : nullptr;
  if (plugin == nullptr) return;
  void* context = nullptr;
  int mask = -1;
  const int result = plugin->init(&context, 42, &mask, "probe", 1, 1, 0, nullptr);
  printf("nccl init: %d, mask %d\n", result, mask);
  plugin->finalize(context);
}

bool CoreMapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libprotond_shim_core.so") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--wait") == 0 && i + 1 < argc) {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(argv[++i])));
    } else if (strcmp(argv[i], "--call") == 0) {
      printf("call: %d\n", static_cast<int>(protond_scope_enter("probe")));
    } else if (strcmp(argv[i], "--nccl") == 0) {
      ActAsNccl();
    } else if (strcmp(argv[i], "--fork") == 0) {
      fflush(stdout);
      const pid_t child = fork();
      if (child > 0) {
        int status = 0;
        waitpid(child, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
      }
    } else {
      fprintf(stderr, "front_probe: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  const bool mapped = CoreMapped();  // before protond_last_error, which must not load it either
  printf("core: %s\nlast error: %s\n", mapped ? "yes" : "no", protond_last_error());
  return 0;
}
