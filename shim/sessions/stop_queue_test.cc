#include "shim/sessions/stop_queue.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::shim {
namespace {

using std::chrono::milliseconds;

TEST(StopQueueTest, EnqueueReturnsBeforeTheStopRuns) {
  StopQueue& queue = *new StopQueue;  // never destroyed, as in the shim
  std::atomic<bool> release{false};
  std::atomic<bool> finished{false};
  const auto begin = std::chrono::steady_clock::now();
  queue.Enqueue(7, [&] {
    while (!release.load()) std::this_thread::sleep_for(milliseconds(1));
    finished.store(true);
  });
  EXPECT_LT(std::chrono::steady_clock::now() - begin, milliseconds(100));
  EXPECT_FALSE(finished.load());
  EXPECT_FALSE(queue.WaitIdle(milliseconds(20)));
  release.store(true);
  queue.WaitFor(7);
  EXPECT_TRUE(finished.load());
  EXPECT_TRUE(queue.WaitIdle(milliseconds(0)));
}

TEST(StopQueueTest, StopsRunOneAtATimeInOrder) {
  StopQueue& queue = *new StopQueue;
  std::vector<uint64_t> order;  // written by the queue's thread only
  std::atomic<int> running{0};
  std::atomic<int> most_at_once{0};
  for (uint64_t session = 1; session <= 5; ++session) {
    queue.Enqueue(session, [&, session] {
      most_at_once.store(std::max(most_at_once.load(), running.fetch_add(1) + 1));
      std::this_thread::sleep_for(milliseconds(2));
      order.push_back(session);
      running.fetch_sub(1);
    });
  }
  ASSERT_TRUE(queue.WaitIdle(std::chrono::seconds(10)));
  EXPECT_THAT(order, testing::ElementsAre(1, 2, 3, 4, 5));
  EXPECT_EQ(most_at_once.load(), 1);
}

TEST(StopQueueTest, WaitForReturnsOnceThatSessionsStopsAreDone) {
  StopQueue& queue = *new StopQueue;
  std::atomic<bool> first_done{false};
  std::atomic<bool> release_second{false};
  queue.Enqueue(1, [&] { first_done.store(true); });
  queue.Enqueue(2, [&] {
    while (!release_second.load()) std::this_thread::sleep_for(milliseconds(1));
  });
  queue.WaitFor(1);
  EXPECT_TRUE(first_done.load());
  queue.WaitFor(3);  // nothing queued for it: at once
  release_second.store(true);
  queue.WaitFor(2);
  EXPECT_TRUE(queue.WaitIdle(milliseconds(0)));
}

TEST(StopQueueTest, AForkedChildRunsTheStopItself) {
  StopQueue& queue = *new StopQueue;
  std::atomic<bool> release{false};
  queue.Enqueue(1, [&] {  // keeps the parent's thread busy, holding a stop at fork
    while (!release.load()) std::this_thread::sleep_for(milliseconds(1));
  });
  const pid_t child = fork();
  if (child == 0) {
    bool ran = false;
    queue.Enqueue(2, [&] { ran = true; });
    queue.WaitFor(1);  // the parent's stop is not the child's to wait for
    _exit(ran && queue.WaitIdle(milliseconds(0)) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  release.store(true);
  EXPECT_TRUE(queue.WaitIdle(std::chrono::seconds(10)));
}

}  // namespace
}  // namespace protond::shim
