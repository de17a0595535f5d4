// ProtondService: its parts put together, and the ingest thread.
#include "daemon/service/protond_service.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "common/status/status_macros.h"

namespace protond::service {

absl::StatusOr<std::unique_ptr<ProtondService>> ProtondService::Create(
    const ServiceOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store, store::Store::Open(options.store_path));
  std::unique_ptr<always_on::WindowScheduler> windows;
  if (options.always_on.has_value()) {
    ASSIGN_OR_RETURN(windows, always_on::WindowScheduler::Create(*options.always_on));
  }
  std::unique_ptr<ProtondService> service(new ProtondService(options, std::move(store)));
  {
    absl::MutexLock lock(&service->mutex_);
    service->windows_ = std::move(windows);
    if (options.always_on.has_value()) {
      service->retention_ = std::make_unique<always_on::HistoryRetention>(options.retention);
    }
    RETURN_IF_ERROR(service->cycle_.Load());
    service->sessions_.Publish(service->registry_.Snapshot(), service->published_);
  }
  service->ingest_thread_ = std::thread([s = service.get()] { s->IngestLoop(); });
  return service;
}

ProtondService::ProtondService(const ServiceOptions& options, std::unique_ptr<store::Store> store)
    : options_(options),
      cycle_(std::move(store), sessions_, registry_),
      readers_(options.store_path) {}

ProtondService::~ProtondService() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  stop_.SignalAll();
  registry_.Close();
  if (ingest_thread_.joinable()) ingest_thread_.join();
}

void ProtondService::IngestLoop() {
  absl::MutexLock lock(&mutex_);
  while (!stopping_) {
    // A cycle every commit_interval, or sooner when a lane fills: a stop's last GPU buffers
    // (megabytes at once) then pass through a lane in a few cycles, not one per commit_interval.
    // Never sooner after a failed commit: the lanes stay full until one works, and cycles back
    // to back would never release mutex_, so no call would be answered, not even SIGTERM's.
    const auto next_cycle = std::chrono::steady_clock::now() + options_.commit_interval;
    while (!stopping_ && std::chrono::steady_clock::now() < next_cycle &&
           (failed_commits_ > 0 || !cycle_.ALaneFills())) {
      stop_.WaitWithTimeout(&mutex_,
                            absl::FromChrono(std::min<std::chrono::steady_clock::duration>(
                                kFillCheckPeriod, next_cycle - std::chrono::steady_clock::now())));
    }
    absl::Status s = RunIngestCycleLocked();
    if (s.ok()) s = EndFinishedAttachedSessions();
    if (s.ok()) s = OpenDueWindows();
    if (s.ok()) ApplyHistoryRetention();
    if (s.ok()) SummarizeStoppedWindows();
    // A failed cycle has gone back to the store; the records wait in the rings, which drop and
    // count what no longer fits, until a commit works again.
    if (!s.ok() && failed_commits_++ == 0) {
      std::fprintf(stderr,
                   "protond: commit failed: %s; the records stay in the programs' rings and the "
                   "commit is tried again every %lld ms\n",
                   s.ToString().c_str(), static_cast<long long>(options_.commit_interval.count()));
    } else if (s.ok() && failed_commits_ > 0) {
      std::fprintf(stderr, "protond: commits work again, after %d failed\n", failed_commits_);
      failed_commits_ = 0;
    }
  }
}

absl::Status ProtondService::RunIngestCycle() {
  absl::MutexLock lock(&mutex_);
  RETURN_IF_ERROR(RunIngestCycleLocked());
  ApplyHistoryRetention();
  SummarizeStoppedWindows();
  return absl::OkStatus();
}

absl::Status ProtondService::RunIngestCycleLocked() {
  absl::StatusOr<ingest::Committed> committed = cycle_.Run();
  if (committed.ok()) {
    kept_trees_.Committed(committed->sessions, committed->every_session,
                          std::chrono::steady_clock::now());
  } else {
    kept_trees_.ForgetAll();  // the sessions went back to the store
  }
  sessions_.Publish(registry_.Snapshot(), published_);
  return committed.status();
}

bool ProtondService::StoreWasRemoved() {
  absl::MutexLock lock(&mutex_);
  return cycle_.StoreWasRemoved();
}

absl::Status ProtondService::WriteTheStoreAnew() {
  absl::MutexLock lock(&mutex_);
  RETURN_IF_ERROR(cycle_.WriteTheStoreAnew(options_.store_path));
  readers_.Forget();
  return absl::OkStatus();
}

}  // namespace protond::service
