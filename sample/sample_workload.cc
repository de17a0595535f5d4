// The demo's workload: nested scopes, scopes on worker threads, user metrics (flops, bytes, a
// property) and a state, written with nothing but the shim's C header. Its results are exact and
// known, so the integration tests check them value by value:
//   setup                  count 1, bytes 1024
//   train > step           count STEPS, loss = 1/STEPS (a property: the last value)
//   train > step > forward count STEPS, flops 1000 each;  > backward  count STEPS, flops 2000 each
//   worker > load          count THREADS*LOADS, bytes 4096 each (inside the state "io")
// It prints a checksum of what it computed, so that a test can tell a profiled run's results
// from an unprofiled one's.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "protond/shim.h"

namespace {

struct Options {
  int steps = 20;
  int threads = 4;
  int loads = 50;
  int step_ms = 0;  // sleep per step, to make a long run
  int exit_code = 0;
};

// Work the compiler cannot remove, so that scopes have a visible duration.
double Busy(int n) {
  volatile double sum = 0;
  for (int i = 1; i <= n; ++i) sum = sum + 1.0 / i;
  return sum;
}

// FNV-1a over the bits of the values added, in their order: a change in any of them (a rounding
// mode, a clobbered register or stack slot) changes it.
class Checksum {
 public:
  void Add(uint64_t bits) {
    for (int byte = 0; byte < 8; ++byte) {
      hash_ = (hash_ ^ ((bits >> (8 * byte)) & 0xff)) * 0x100000001b3;
    }
  }
  void Add(double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    Add(bits);
  }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325;
};

void Worker(const Options& options, uint64_t* checksum) {
  Checksum results;
  protond_scope_enter("worker");
  protond_state_enter("io");
  for (int i = 0; i < options.loads; ++i) {
    protond_scope_enter("load");
    results.Add(Busy(2000));
    protond_metric_int64("bytes", 4096);
    protond_scope_exit("load");
  }
  protond_state_exit();
  protond_scope_exit("worker");
  *checksum = results.value();
}

void Train(const Options& options, Checksum& results) {
  protond_scope_enter("train");
  for (int step = 0; step < options.steps; ++step) {
    protond_scope_enter("step");
    protond_scope_enter("forward");
    results.Add(Busy(20000));
    protond_metric_int64("flops", 1000);
    protond_scope_exit("forward");
    protond_scope_enter("backward");
    results.Add(Busy(40000));
    protond_metric_int64("flops", 2000);
    protond_scope_exit("backward");
    protond_metric_double("loss (pty)", 1.0 / (step + 1));
    if (options.step_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(options.step_ms));
    protond_scope_exit("step");
  }
  protond_scope_exit("train");
}

bool ParseInt(const char* text, int* value) {
  char* end = nullptr;
  const long parsed = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || parsed < 0 || parsed > 1000000) return false;
  *value = static_cast<int>(parsed);
  return true;
}

bool ParseOptions(int argc, char** argv, Options& options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    int* target = flag == "--steps"       ? &options.steps
                  : flag == "--threads"   ? &options.threads
                  : flag == "--loads"     ? &options.loads
                  : flag == "--step-ms"   ? &options.step_ms
                  : flag == "--exit-code" ? &options.exit_code
                                          : nullptr;
    if (target == nullptr || !ParseInt(argv[i + 1], target)) {
      std::fprintf(stderr, "sample_workload: bad option %s %s\n", argv[i], argv[i + 1]);
      return false;
    }
  }
  return argc % 2 == 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, options)) {
    std::fprintf(stderr,
                 "usage: sample_workload [--steps N] [--threads N] [--loads N] [--step-ms N] "
                 "[--exit-code N]\n");
    return 2;
  }
  protond_scope_enter("setup");
  protond_metric_int64("bytes", 1024);
  protond_scope_exit("setup");
  std::vector<uint64_t> worker_checksums(options.threads);
  std::vector<std::thread> workers;
  for (int i = 0; i < options.threads; ++i) {
    workers.emplace_back(Worker, std::cref(options), &worker_checksums[i]);
  }
  Checksum results;
  Train(options, results);
  for (std::thread& worker : workers) worker.join();
  for (uint64_t worker : worker_checksums) results.Add(worker);
  std::printf("sample_workload: checksum %016llx of its results\n",
              static_cast<unsigned long long>(results.value()));
  std::printf("sample_workload: %d steps, %d threads x %d loads, session %llu\n", options.steps,
              options.threads, options.loads,
              static_cast<unsigned long long>(protond_current_session()));
  return options.exit_code;
}
