// Test-only: runs a function on a thread with a small stack, so that a test can show that a tree
// walk does not take stack in proportion to the tree's depth: at kMaxTreeDepth levels, a walk
// that recursed would overflow it even with small frames (and ASan's are not small).
#ifndef PROTOND_COMMON_TESTING_SMALL_STACK_H_
#define PROTOND_COMMON_TESTING_SMALL_STACK_H_

#include <pthread.h>

#include <cstddef>
#include <functional>

namespace protond::testing {

inline constexpr size_t kSmallStackBytes = 256 * 1024;

// Runs `run` to its end on a new thread of kSmallStackBytes; false if the thread did not start.
inline bool RunOnSmallStack(const std::function<void()>& run) {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, kSmallStackBytes);
  auto call = [](void* function) -> void* {
    (*static_cast<const std::function<void()>*>(function))();
    return nullptr;
  };
  pthread_t thread;
  const bool started =
      pthread_create(&thread, &attributes, call, const_cast<std::function<void()>*>(&run)) == 0;
  pthread_attr_destroy(&attributes);
  if (started) pthread_join(thread, nullptr);
  return started;
}

}  // namespace protond::testing

#endif  // PROTOND_COMMON_TESTING_SMALL_STACK_H_
