#include "daemon/query/store_readers.h"

#include "common/status/status_macros.h"

namespace protond::query {

// More idle connections than this are closed: each holds SQLite's page cache.
constexpr size_t kMaxIdleReaders = 4;

StoreReaders::Lease::~Lease() {
  if (store_ != nullptr) pool_->GiveBack(std::move(store_), generation_);
}

absl::StatusOr<StoreReaders::Lease> StoreReaders::Take() {
  uint64_t generation;
  {
    absl::MutexLock lock(&mutex_);
    generation = generation_;
    if (!idle_.empty()) {
      std::unique_ptr<store::Store> store = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(store), generation);
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store, store::Store::Open(path_));
  return Lease(this, std::move(store), generation);
}

void StoreReaders::Forget() {
  absl::MutexLock lock(&mutex_);
  ++generation_;
  idle_.clear();
}

void StoreReaders::GiveBack(std::unique_ptr<store::Store> store, uint64_t generation) {
  absl::MutexLock lock(&mutex_);
  if (generation == generation_ && idle_.size() < kMaxIdleReaders) {
    idle_.push_back(std::move(store));
  }
}

}  // namespace protond::query
