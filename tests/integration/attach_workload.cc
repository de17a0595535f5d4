// A program with nothing of protond's preloaded or linked, for attach_test: it records a scope
// per step through the shim's C ABI once someone has loaded the shim into it (dlopen with
// RTLD_NOLOAD finds it only then), and computes a checksum either way, so that a test can tell
// that being attached changed none of its results.
//
// Usage: attach_workload SHIM_PATH STEPS STEP_MS [FAKE_LIBCUDA]
//   FAKE_LIBCUDA: a file it maps, named like libcuda.so, so that protond lists it as a GPU process.
// Prints "steps STEPS, checksum C, attached at step N" (N: -1 when never attached).
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "protond/shim.h"

namespace {

using ScopeCall = protond_result (*)(const char*);

struct Shim {
  ScopeCall enter = nullptr;
  ScopeCall exit = nullptr;
};

// The shim's scope calls if it has been loaded into this process by now.
bool FindLoadedShim(const char* path, Shim* shim) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  shim->enter = reinterpret_cast<ScopeCall>(dlsym(handle, "protond_scope_enter"));
  shim->exit = reinterpret_cast<ScopeCall>(dlsym(handle, "protond_scope_exit"));
  return shim->enter != nullptr && shim->exit != nullptr;
}

uint64_t Work(uint64_t state) {
  for (int i = 0; i < 20000; ++i) state = state * 6364136223846793005u + 1442695040888963407u;
  return state;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: attach_workload SHIM_PATH STEPS STEP_MS [FAKE_LIBCUDA]\n");
    return 2;
  }
  const int steps = std::atoi(argv[2]);
  const int step_ms = std::atoi(argv[3]);
  if (argc > 4) {
    const int fd = open(argv[4], O_RDONLY);
    if (fd < 0 || mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
      std::perror(argv[4]);
      return 2;
    }
  }
  Shim shim;
  int attached_at = -1;
  uint64_t checksum = 1;
  for (int step = 0; step < steps; ++step) {
    if (attached_at < 0 && FindLoadedShim(argv[1], &shim)) attached_at = step;
    if (attached_at >= 0) shim.enter("attached_step");
    checksum = Work(checksum);
    if (attached_at >= 0) shim.exit("attached_step");
    std::this_thread::sleep_for(std::chrono::milliseconds(step_ms));
  }
  std::printf("steps %d, checksum %llu, attached at step %d\n", steps,
              static_cast<unsigned long long>(checksum), attached_at);
  return 0;
}
