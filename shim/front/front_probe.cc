// A program linked with the shim's front (front_test.cc runs it): says whether the core is mapped
// into it after what its arguments ask, in order:
//   --wait MS   sleep
//   --call      one call of the C ABI (protond_scope_enter), and its result
//   --fork      the rest in a forked child (the parent waits for it)
// then prints "core: yes|no" and protond_last_error().
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "protond/shim.h"

namespace {

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
