#include "shim/sessions/stop_queue.h"

#include <unistd.h>

#include <algorithm>
#include <thread>
#include <utility>

namespace protond::shim {

StopQueue::StopQueue() : owner_pid_(getpid()) {}

void StopQueue::Enqueue(uint64_t session_id, std::function<void()> finish) {
  if (getpid() != owner_pid_) return finish();
  absl::MutexLock lock(&mutex_);
  queue_.push_back({session_id, std::move(finish)});
  if (!thread_started_) {
    thread_started_ = true;
    // Detached, and the queue is never destroyed: exit may come while the thread waits.
    std::thread([this] { Run(); }).detach();
  }
}

void StopQueue::Run() {
  absl::MutexLock lock(&mutex_);
  while (true) {
    const auto has_work = [this]()
                              ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return !queue_.empty(); };
    mutex_.Await(absl::Condition(&has_work));
    std::function<void()> finish = queue_.front().finish;
    mutex_.Unlock();
    finish();
    mutex_.Lock();
    queue_.pop_front();
  }
}

bool StopQueue::PendingLocked(uint64_t session_id) const {
  return std::any_of(queue_.begin(), queue_.end(),
                     [&](const Stop& stop) { return stop.session_id == session_id; });
}

void StopQueue::WaitFor(uint64_t session_id) {
  if (getpid() != owner_pid_) return;
  absl::MutexLock lock(&mutex_);
  const auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return !PendingLocked(session_id);
  };
  mutex_.Await(absl::Condition(&done));
}

bool StopQueue::WaitIdle(std::chrono::milliseconds timeout) {
  if (getpid() != owner_pid_) return true;
  absl::MutexLock lock(&mutex_);
  const auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return queue_.empty(); };
  return mutex_.AwaitWithTimeout(absl::Condition(&idle), absl::FromChrono(timeout));
}

}  // namespace protond::shim
