// Cost of a scope enter+exit pair in the shim on one thread (goal: at most 50 ns per pair), next
// to its floor: the two timestamps a pair needs (TSC reads where the TSC is invariant, else
// clock_gettime; docs/record-format.md). Run:
//   build-rel/bin/protond_scope_benchmark --benchmark_repetitions=10
//   --benchmark_report_aggregates_only
#include <time.h>
#include <unistd.h>

#include <thread>

#include "benchmark/benchmark.h"
#include "shim/ring/ring_writer.h"
#include "shim/scopes/recorder.h"
#include "shim/scopes/thread_recorder.h"

namespace {

using protond::ring::LaneHeaderAt;

// The region is emptied by the benchmark itself, playing the daemon, so the lane never fills.
void KeepLaneEmpty(protond::ring::WritableRegion& region) {
  auto* lane = LaneHeaderAt(region.base(), 0);
  lane->read_pos.store(lane->write_pos.load());
}

void BM_ClockPairFloor(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockPairFloor);

// What a pair of TSC timestamps costs (record format 8 on an invariant TSC).
void BM_RdtscPairFloor(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(__builtin_ia32_rdtsc());
    benchmark::DoNotOptimize(__builtin_ia32_rdtsc());
  }
}
BENCHMARK(BM_RdtscPairFloor);

void RecordPairs(benchmark::State& state, protond::shim::ScopeClock clock) {
  auto region = protond::ring::WritableRegion::Create({1, 1u << 24});
  protond::shim::Recorder recorder(&*region, getpid(), clock);
  recorder.StartRecording(1);
  int64_t pairs = 0;
  for (auto _ : state) {
    recorder.EnterScope("step");
    recorder.ExitScope("step");
    if ((++pairs & 4095) == 0) KeepLaneEmpty(*region);
  }
  state.SetItemsProcessed(pairs);
  state.counters["dropped"] =
      static_cast<double>(LaneHeaderAt(region->base(), 0)->dropped_records.load());
}

// With the clock this machine's shim uses (the TSC where it is invariant).
void BM_ScopePairRecording(benchmark::State& state) {
  RecordPairs(state, protond::shim::DetectScopeClock());
}
BENCHMARK(BM_ScopePairRecording);

// With CLOCK_MONOTONIC, as where the TSC is not invariant (and as before record format 8).
void BM_ScopePairRecordingMonotonic(benchmark::State& state) {
  RecordPairs(state, protond::shim::ScopeClock::kMonotonic);
}
BENCHMARK(BM_ScopePairRecordingMonotonic);

void BM_NestedScopePairRecording(benchmark::State& state) {
  auto region = protond::ring::WritableRegion::Create({1, 1u << 24});
  protond::shim::Recorder recorder(&*region);
  recorder.StartRecording(1);
  recorder.EnterScope("outer");
  int64_t pairs = 0;
  for (auto _ : state) {
    recorder.EnterScope("inner");
    recorder.ExitScope(nullptr);
    if ((++pairs & 4095) == 0) KeepLaneEmpty(*region);
  }
  state.SetItemsProcessed(pairs);
}
BENCHMARK(BM_NestedScopePairRecording);

void BM_ScopePairIdle(benchmark::State& state) {
  auto region = protond::ring::WritableRegion::Create({1, 1u << 16});
  protond::shim::Recorder recorder(&*region);
  for (auto _ : state) {
    recorder.EnterScope("step");
    recorder.ExitScope("step");
  }
}
BENCHMARK(BM_ScopePairIdle);

}  // namespace

BENCHMARK_MAIN();
