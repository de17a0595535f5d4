// What the shim's front (shim/front/front.cc) adds to each call of the C ABI: a scope pair through
// the exported functions (front, then the core's table) against the same pair through the
// core's table directly, as a program reached the shim's functions before the split. No session
// runs, so both measure the idle path (the scope stack only). Run with no daemon to find:
//   PROTOND_SOCKET=/nonexistent PROTOND_AUTOSTART=0 build/bin/protond_shim_call_benchmark
//   --benchmark_repetitions=10 --benchmark_report_aggregates_only
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "benchmark/benchmark.h"
#include "protond/shim.h"
#include "shim/front/core_api.h"

namespace {

// The core the front loaded (the first ABI call loads it).
const ProtondShimCore* LoadedCore() {
  protond_current_session();
  void* core = dlopen("libprotond_shim_core.so", RTLD_NOW | RTLD_NOLOAD);
  auto table = core != nullptr ? reinterpret_cast<protond_shim_core_table_function>(
                                     dlsym(core, PROTOND_SHIM_CORE_TABLE_SYMBOL))
                               : nullptr;
  if (table == nullptr) {
    std::fprintf(stderr, "the shim's core is not loaded: %s\n", dlerror());
    std::exit(1);
  }
  return table();
}

void BM_ScopePairThroughTheFront(benchmark::State& state) {
  LoadedCore();
  for (auto _ : state) {
    benchmark::DoNotOptimize(protond_scope_enter("step"));
    benchmark::DoNotOptimize(protond_scope_exit("step"));
  }
}
BENCHMARK(BM_ScopePairThroughTheFront);

void BM_ScopePairThroughTheCoreTable(benchmark::State& state) {
  const ProtondShimCore* core = LoadedCore();
  for (auto _ : state) {
    benchmark::DoNotOptimize(core->protond_scope_enter("step"));
    benchmark::DoNotOptimize(core->protond_scope_exit("step"));
  }
}
BENCHMARK(BM_ScopePairThroughTheCoreTable);

}  // namespace

BENCHMARK_MAIN();
