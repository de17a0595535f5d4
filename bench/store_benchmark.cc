// The store's commit cost against batch size: an ingest cycle commits the changed node_stats of
// its sessions plus the read positions of every lane (64 here) in one transaction. And one step
// of the always-on history's retention: measuring and deleting a window. The store
// file lives in $TMPDIR (or /tmp), so the numbers depend on that file system.
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "daemon/store/store.h"

namespace protond::store {
namespace {

constexpr uint32_t kLanes = 64;

class TempStoreFile {
 public:
  TempStoreFile() {
    const char* base = getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/protond_bench_XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) dir_ = pattern;
  }
  ~TempStoreFile() {
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  std::string path() const { return dir_ + "/protond.db"; }
  void Remove() const {
    for (const char* suffix : {"", "-wal", "-shm"}) unlink((path() + suffix).c_str());
  }

 private:
  std::string dir_;
};

// A session of `nodes` nodes recorded by one process with kLanes lanes, as a first commit
// writes it: the session, the process, the tree and every lane.
Batch FirstBatch(uint32_t nodes) {
  Batch batch;
  batch.sessions = {{1, "bench", 1000, SessionState::kRunning, 1, 0, {}}};
  batch.processes = {{1, 4242, 1000, 12345, "python train.py", false}};
  batch.session_processes = {{1, 1, 0, 0}};
  for (uint32_t node = 1; node <= nodes; ++node) {
    // Realistic names: a few levels of a model, shared prefixes, ~30 bytes each.
    batch.nodes.push_back({1, node, node <= 16 ? 0 : node % 16 + 1,
                           absl::StrCat("model.layers.", node, ".attention.matmul")});
    batch.node_stats.push_back({1, node, 1, 1, 1000, 1000, 1000});
  }
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    batch.lanes.push_back({1, lane, 0, 0, "", std::string(64, 's')});
  }
  return batch;
}

// The steady state: every node's stats changed, every lane moved, nothing new in the tree.
void UpdateBatch(Batch& batch, uint64_t i) {
  for (NodeStatsRow& row : batch.node_stats) {
    row.count = i;
    row.duration_ns_sum = i * 1000;
  }
  for (LaneRow& lane : batch.lanes) lane.read_pos = i * 4096;
}

std::unique_ptr<Store> OpenOrDie(const std::string& path, benchmark::State& state) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
  if (!store.ok()) state.SkipWithError(std::string(store.status().message()).c_str());
  return store.ok() ? *std::move(store) : nullptr;
}

// Upserts of N existing node_stats rows plus kLanes lane rows per commit.
void BM_CommitNodeStats(benchmark::State& state) {
  const auto nodes = static_cast<uint32_t>(state.range(0));
  TempStoreFile file;
  std::unique_ptr<Store> store = OpenOrDie(file.path(), state);
  if (store == nullptr) return;
  Batch batch = FirstBatch(nodes);
  if (!store->CommitBatch(batch).ok()) return state.SkipWithError("first commit failed");
  batch.sessions.clear();
  batch.processes.clear();
  batch.session_processes.clear();
  batch.nodes.clear();
  uint64_t i = 1;
  for (auto _ : state) {
    UpdateBatch(batch, ++i);
    absl::Status status = store->CommitBatch(batch).status();
    if (!status.ok()) return state.SkipWithError(std::string(status.message()).c_str());
  }
  state.counters["rows_per_commit"] = nodes + kLanes;
  state.counters["rows_per_s"] = benchmark::Counter(static_cast<double>(nodes + kLanes),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_CommitNodeStats)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000)->UseRealTime();

// A first commit into a fresh file: N new nodes (names interned), their stats and kLanes lanes.
// file_bytes is the store's size afterwards, with the WAL checkpointed into it.
void BM_CommitNewTree(benchmark::State& state) {
  const auto nodes = static_cast<uint32_t>(state.range(0));
  TempStoreFile file;
  const Batch batch = FirstBatch(nodes);
  for (auto _ : state) {
    state.PauseTiming();
    file.Remove();
    std::unique_ptr<Store> store = OpenOrDie(file.path(), state);
    if (store == nullptr) return;
    state.ResumeTiming();
    absl::Status status = store->CommitBatch(batch).status();
    if (!status.ok()) return state.SkipWithError(std::string(status.message()).c_str());
    state.PauseTiming();
    store.reset();  // the last connection checkpoints the WAL into the file and removes it
    state.ResumeTiming();
  }
  struct stat info {};
  state.counters["file_bytes"] = stat(file.path().c_str(), &info) == 0 ? info.st_size : -1;
  state.counters["rows_per_s"] = benchmark::Counter(static_cast<double>(2 * nodes + kLanes + 3),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_CommitNewTree)->Arg(100)->Arg(1000)->Arg(10000)->UseRealTime();

// A stopped always-on window `session_id` of FirstBatch's tree, with a metric at every node.
Batch WindowBatch(uint32_t nodes, uint64_t session_id) {
  Batch batch = FirstBatch(nodes);
  batch.lanes.clear();
  SessionRow& window = batch.sessions.front();
  window.session_id = session_id;
  window.state = SessionState::kStopped;
  window.always_on_window = true;
  for (auto& row : batch.session_processes) row.session_id = session_id;
  for (auto& row : batch.nodes) row.session_id = session_id;
  for (auto& row : batch.node_stats) {
    row.session_id = session_id;
    batch.metrics.push_back({session_id,
                             row.node_id,
                             1,
                             "flops",
                             MetricAggregation::kInclusive,
                             false,
                             123456789,
                             0,
                             {}});
  }
  return batch;
}

// One step of the history's retention on a window of N nodes among kWindowsKept others: measuring
// it (a read), then deleting it (one write transaction: the time the write lock is held).
constexpr uint64_t kWindowsKept = 200;
void BM_DeleteHistoryWindow(benchmark::State& state) {
  const auto nodes = static_cast<uint32_t>(state.range(0));
  TempStoreFile file;
  std::unique_ptr<Store> store = OpenOrDie(file.path(), state);
  if (store == nullptr) return;
  uint64_t next = 1;
  for (; next <= kWindowsKept; ++next) {
    if (!store->CommitBatch(WindowBatch(nodes, next)).ok()) {
      return state.SkipWithError("commit failed");
    }
  }
  uint64_t oldest = 1;
  for (auto _ : state) {
    absl::StatusOr<uint64_t> bytes = store->SessionStoredBytes(oldest);
    absl::Status status = bytes.ok() ? store->DeleteHistorySession(oldest++) : bytes.status();
    if (!status.ok()) return state.SkipWithError(std::string(status.message()).c_str());
    state.PauseTiming();
    status = store->CommitBatch(WindowBatch(nodes, next++)).status();
    if (!status.ok()) return state.SkipWithError(std::string(status.message()).c_str());
    state.ResumeTiming();
  }
  state.counters["rows_per_window"] = 3 * nodes + 2;
}
BENCHMARK(BM_DeleteHistoryWindow)->Arg(100)->Arg(1000)->Arg(5000)->UseRealTime();

}  // namespace
}  // namespace protond::store

BENCHMARK_MAIN();
