// Fills a protond store with always-on windows, as `protond --always-on` leaves them after a day,
// for bench/history_latency.sh (the time of `protonctl history` over many stored windows).
//
// Usage: history_windows_fill STORE_PATH WINDOWS NODES
// Writes WINDOWS stopped windows of one process of the calling user, a minute apart, each with a
// call tree of NODES nodes (daemon/store/testing's chain of scopes, each with its stats and a
// metric), then exits.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "daemon/store/store.h"
#include "daemon/store/testing/session_batches.h"

namespace {

constexpr int64_t kMinuteNs = 60'000'000'000;

// A window of 2 s of the calling user, with the store tests' tree of `nodes` nodes.
protond::store::Batch WindowBatch(uint64_t session_id, uint32_t nodes, int64_t start_ns) {
  protond::store::Batch batch = protond::store::testing::StoppedSessionBatch(
      session_id, /*always_on_window=*/true, nodes, start_ns);
  batch.sessions[0].uid = static_cast<uint32_t>(getuid());
  batch.sessions[0].end_time_unix_ns = start_ns + 2'000'000'000;
  batch.processes[0].uid = batch.sessions[0].uid;
  return batch;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: history_windows_fill STORE_PATH WINDOWS NODES\n");
    return 2;
  }
  const uint64_t windows = std::strtoull(argv[2], nullptr, 10);
  const uint32_t nodes = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
  absl::StatusOr<std::unique_ptr<protond::store::Store>> store =
      protond::store::Store::Open(argv[1]);
  if (!store.ok()) {
    std::fprintf(stderr, "history_windows_fill: %s\n", store.status().ToString().c_str());
    return 1;
  }
  const int64_t first_ns = 1'795'773'600'000'000'000;  // 2026-11-27 10:00:00 UTC
  for (uint64_t i = 0; i < windows; ++i) {
    auto committed = (*store)->CommitBatch(
        WindowBatch(i + 1, nodes, first_ns + static_cast<int64_t>(i) * kMinuteNs));
    if (!committed.ok() || !committed->empty()) {
      std::fprintf(stderr, "history_windows_fill: window %llu was not stored\n",
                   static_cast<unsigned long long>(i + 1));
      return 1;
    }
  }
  return 0;
}
