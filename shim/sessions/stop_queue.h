// The shim's thread that finishes stopping sessions, so that the program's stop returns at once.
// Ending a session means waiting for CUPTI to deliver the session's last GPU records (its disable
// and forced flush take 10-200 ms at high kernel rates) and telling the daemon; the program's
// thread only marks the session as stopping and queues the rest here. The thread starts with the
// first queued stop and lives for the life of the process; stops run one at a time, in order.
//
// Any thread may call any method. In a forked child, where the thread does not exist, Enqueue
// runs the work on the calling thread.
#ifndef PROTOND_SHIM_SESSIONS_STOP_QUEUE_H_
#define PROTOND_SHIM_SESSIONS_STOP_QUEUE_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace protond::shim {

class StopQueue {
 public:
  StopQueue();
  StopQueue(const StopQueue&) = delete;
  StopQueue& operator=(const StopQueue&) = delete;
  // Never destroyed while its thread runs: the shim keeps it for the life of the process.
  ~StopQueue() = default;

  // Runs `finish` on the queue's thread after every stop queued before it.
  void Enqueue(uint64_t session_id, std::function<void()> finish);
  // Returns once no stop of `session_id` is queued or running.
  void WaitFor(uint64_t session_id);
  // Returns true once nothing is queued or running, false if that takes longer than `timeout`.
  bool WaitIdle(std::chrono::milliseconds timeout);

 private:
  struct Stop {
    uint64_t session_id;
    std::function<void()> finish;
  };
  void Run();
  bool PendingLocked(uint64_t session_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  absl::Mutex mutex_;
  // The stop running now is the front; it leaves the queue when done.
  std::deque<Stop> queue_ ABSL_GUARDED_BY(mutex_);
  bool thread_started_ ABSL_GUARDED_BY(mutex_) = false;
  // A forked child (another pid) has no queue thread, and may find mutex_ held: it never locks it.
  const pid_t owner_pid_;
};

}  // namespace protond::shim

#endif  // PROTOND_SHIM_SESSIONS_STOP_QUEUE_H_
