// Connections of their own to the store, for queries that read it while the ingest cycle writes:
// in WAL mode a reader sees the last commit and neither waits for the writer nor holds it up.
// Each lease is one query's connection; it goes back to the pool when the lease ends. Thread-safe.
#ifndef PROTOND_DAEMON_QUERY_STORE_READERS_H_
#define PROTOND_DAEMON_QUERY_STORE_READERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "daemon/store/store.h"

namespace protond::query {

class StoreReaders {
 public:
  explicit StoreReaders(std::string path) : path_(std::move(path)) {}

  class Lease {
   public:
    Lease(StoreReaders* pool, std::unique_ptr<store::Store> store, uint64_t generation)
        : pool_(pool), store_(std::move(store)), generation_(generation) {}
    Lease(Lease&&) = default;
    ~Lease();
    store::Store& operator*() const { return *store_; }
    store::Store* operator->() const { return store_.get(); }

   private:
    StoreReaders* pool_;
    std::unique_ptr<store::Store> store_;
    uint64_t generation_;
  };

  // An idle connection, or a new one.
  absl::StatusOr<Lease> Take();
  // The file at the path was written anew: connections to the old one are closed, now or as
  // their leases end.
  void Forget();

 private:
  void GiveBack(std::unique_ptr<store::Store> store, uint64_t generation);

  const std::string path_;
  absl::Mutex mutex_;
  std::vector<std::unique_ptr<store::Store>> idle_ ABSL_GUARDED_BY(mutex_);
  uint64_t generation_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace protond::query

#endif  // PROTOND_DAEMON_QUERY_STORE_READERS_H_
