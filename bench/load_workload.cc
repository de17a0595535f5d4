// A program that records as fast as it is allowed, for bench/load.py: THREADS threads, each
// entering and leaving scopes ("step", and under it "op_0" to "op_15") with an int metric, for
// SECONDS or until SIGTERM. RATE is scope pairs per second per thread (0: as fast as the shim
// takes them); each op writes three records (enter, metric, exit). Prints how many scope pairs
// its threads entered, recorded or not (they are recorded only while a session is attached).
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "protond/shim.h"

namespace {

constexpr int kOpsPerStep = 16;

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_terminated{false};

void Terminate(int) { g_terminated.store(true); }

uint64_t Record(Clock::time_point end, int rate) {
  static const char* const kOps[kOpsPerStep] = {"op_0",  "op_1",  "op_2",  "op_3", "op_4",  "op_5",
                                                "op_6",  "op_7",  "op_8",  "op_9", "op_10", "op_11",
                                                "op_12", "op_13", "op_14", "op_15"};
  const auto begin = Clock::now();
  uint64_t pairs = 0;
  while (Clock::now() < end && !g_terminated.load(std::memory_order_relaxed)) {
    protond_scope_enter("step");
    for (const char* op : kOps) {
      protond_scope_enter(op);
      protond_metric_int64("n", 1);
      protond_scope_exit(op);
    }
    protond_scope_exit("step");
    pairs += kOpsPerStep + 1;
    if (rate > 0) {  // paced: sleep until this many pairs are due
      std::this_thread::sleep_until(begin + std::chrono::nanoseconds(pairs * 1'000'000'000 / rate));
    }
  }
  return pairs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: load_workload THREADS SECONDS RATE\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const int seconds = std::atoi(argv[2]);
  const int rate = std::atoi(argv[3]);
  std::signal(SIGTERM, Terminate);
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  std::atomic<uint64_t> pairs{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back([&] { pairs += Record(end, rate); });
  }
  for (std::thread& worker : workers) worker.join();
  std::printf("load_workload: %d threads, %llu scope pairs\n", threads,
              static_cast<unsigned long long>(pairs.load()));
  return 0;
}
