// One always-on period made from an hour of windows (daemon/always_on/history_periods.h): the
// time each window's tree takes to read and add (one piece of a retention step each), and the
// time to write the period and delete its windows (Finish: the summary, then ONE write
// transaction, the only part that holds the store's write lock). docs/always-on.md,
// "Retention", quotes it. The store file lives in $TMPDIR (or /tmp).
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "daemon/always_on/history_periods.h"
#include "daemon/query/tree_query.h"
#include "daemon/store/store.h"
#include "view/history/window_summary.h"

namespace protond::always_on {
namespace {

constexpr int64_t kSecondNs = 1'000'000'000;
constexpr int64_t kHourNs = 3600 * kSecondNs;
constexpr int kWindowsAnHour = 60;  // the default policy: a window every 60 s

std::string TempDir() {
  const char* base = getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/protond_bench_XXXXXX";
  return mkdtemp(pattern.data()) != nullptr ? pattern : "";
}

// A stopped 2 s window of process 1 at `start_ns` with a tree of `nodes` kernels under a few
// levels of scopes, each with its stats and its GPU time, as ingest commits a window.
store::Batch WindowBatch(uint64_t session_id, uint32_t nodes, int64_t start_ns) {
  store::Batch batch;
  store::SessionRow window{
      session_id, "window pid 4242",        1000, store::SessionState::kStopped,
      start_ns,   start_ns + 2 * kSecondNs, {}};
  window.always_on_window = true;
  batch.sessions = {window};
  batch.processes = {{1, 4242, 1000, 12345, "python train.py", false}};
  batch.session_processes = {{session_id, 1, 5000, 0}};
  for (uint32_t node = 1; node <= nodes; ++node) {
    batch.nodes.push_back({session_id, node, node <= 16 ? 0 : node % 16 + 1,
                           absl::StrCat("model.layers.", node, ".attention.matmul")});
    batch.node_stats.push_back({session_id, node, 1, 3, 3000, 900, 1100});
    batch.metrics.push_back({session_id,
                             node,
                             1,
                             "time (ns)",
                             store::MetricAggregation::kInclusive,
                             false,
                             3000,
                             0,
                             {}});
  }
  return batch;
}

void BM_MergeHourOfWindows(benchmark::State& state) {
  const auto nodes = static_cast<uint32_t>(state.range(0));
  const std::string dir = TempDir();
  absl::StatusOr<std::unique_ptr<store::Store>> opened = store::Store::Open(dir + "/protond.db");
  if (!opened.ok()) return state.SkipWithError(std::string(opened.status().message()).c_str());
  store::Store& store = **opened;
  uint64_t next_id = 1;
  int64_t hour = int64_t{1764201600} * kSecondNs;
  double member_max_ms = 0, members_ms = 0, finish_ms = 0, summary_ms = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<StoppedWindow> history;
    for (int i = 0; i < kWindowsAnHour; ++i) {
      const int64_t start = hour + i * 60 * kSecondNs;
      if (!store.CommitBatch(WindowBatch(next_id, nodes, start)).ok()) {
        return state.SkipWithError("commit failed");
      }
      history.push_back({next_id++,
                         start,
                         5000,
                         0,
                         "window pid 4242",
                         1000,
                         "",
                         {1},
                         store::HistoryPeriod::kWindow});
    }
    std::optional<PeriodGroup> group =
        NextDuePeriod(history, std::chrono::hours(24), std::chrono::hours(24 * 14),
                      hour + kHourNs + 25 * kHourNs);
    if (!group.has_value()) return state.SkipWithError("no period due");
    hour += kHourNs;
    state.ResumeTiming();

    PeriodMerge merge(*std::move(group), next_id++);
    for (bool all_in = false; !all_in;) {
      const auto start = std::chrono::steady_clock::now();
      absl::StatusOr<bool> added = merge.AddNextMember(store);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      if (!added.ok()) return state.SkipWithError(std::string(added.status().message()).c_str());
      all_in = *added;
      member_max_ms = std::max(member_max_ms, ms);
      members_ms += ms;
    }
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<store::SessionRow> period = merge.Finish(store);
    finish_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!period.ok()) return state.SkipWithError(std::string(period.status().message()).c_str());
    // Finish's part before the transaction: the period's summary from its merged tree, done
    // again here on the tree as stored to tell it apart.
    state.PauseTiming();
    absl::StatusOr<store::StoredTree> merged = store.LoadTree(period->session_id);
    if (!merged.ok()) return state.SkipWithError(std::string(merged.status().message()).c_str());
    const auto summary_start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(
        view::SummarizeWindowTree(query::BuildTree(*merged, /*instructions=*/false)));
    summary_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - summary_start)
            .count();
    state.ResumeTiming();
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["window_max_ms"] = member_max_ms;
  state.counters["windows_ms"] = members_ms / iterations;
  state.counters["finish_ms"] = finish_ms / iterations;
  // The write transaction: the write lock's hold.
  state.counters["transaction_ms"] = (finish_ms - summary_ms) / iterations;
  state.counters["rows_per_window"] = 3 * nodes + 2;
  opened->reset();
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}
BENCHMARK(BM_MergeHourOfWindows)->Arg(100)->Arg(1000)->Arg(3000)->Iterations(3)->UseRealTime();

}  // namespace
}  // namespace protond::always_on

BENCHMARK_MAIN();
