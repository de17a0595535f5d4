#include "tests/integration/two_ranks.h"

#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace protond::testing {

uint64_t MonotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
}

int RunBothRanks(char** argv) {
  const std::string base = "PROTOND_TEST_BASE_NS=" + std::to_string(MonotonicNs());
  std::vector<pid_t> ranks;
  for (const char* rank : {"RANK=0", "RANK=1"}) {
    std::vector<char*> env;
    for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
    env.push_back(const_cast<char*>(rank));
    env.push_back(const_cast<char*>(base.c_str()));
    env.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, env.data()) != 0) return 1;
    ranks.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : ranks) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++failed;
    }
  }
  return failed == 0 ? 0 : 1;
}

bool RankOfJob(int* rank, uint64_t* base_ns) {
  const char* rank_text = std::getenv("RANK");
  const char* base_text = std::getenv("PROTOND_TEST_BASE_NS");
  if (rank_text == nullptr || base_text == nullptr) return false;
  *rank = std::atoi(rank_text);
  *base_ns = std::strtoull(base_text, nullptr, 10);
  return true;
}

bool RankAtWallClock(const char* start_unix_s, int* rank, uint64_t* base_ns) {
  const char* rank_text = std::getenv("RANK");
  char* end = nullptr;
  const uint64_t start_s = std::strtoull(start_unix_s, &end, 10);
  if (rank_text == nullptr || end == start_unix_s || *end != '\0') return false;
  *rank = std::atoi(rank_text);
  // CLOCK_MONOTONIC less CLOCK_REALTIME, read back to back: a time namespace shifts only the first.
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  const uint64_t monotonic_ns = MonotonicNs();
  const uint64_t wall_ns =
      static_cast<uint64_t>(wall.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(wall.tv_nsec);
  *base_ns = start_s * 1'000'000'000 + monotonic_ns - wall_ns;
  return true;
}

}  // namespace protond::testing
