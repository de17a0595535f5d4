// Several sessions of one process recording at once through the shim's C API, as Proton's
// sessions do: "first" is started before scope "outer", "second" inside it; "first" pauses for one
// "inner" scope and stops before "after". Then sessions are started until the shim refuses
// one. Prints each call's result (and the refusal's message) on one line; exits 0 either way.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "protond/shim.h"

namespace {

void Inner() {
  protond_scope_enter("inner");
  protond_metric_int64("items", 3);
  protond_scope_exit("inner");
}

}  // namespace

int main() {
  uint64_t first = 0;
  uint64_t second = 0;
  if (protond_session_start("first", &first) != PROTOND_OK) {
    std::printf("start failed: %s\n", protond_last_error());
    return 0;
  }
  protond_scope_enter("outer");
  if (protond_session_start("second", &second) != PROTOND_OK) {
    std::printf("start failed: %s\n", protond_last_error());
    return 0;
  }
  Inner();
  Inner();
  const protond_result paused = protond_session_pause(first);
  Inner();
  const protond_result resumed = protond_session_resume(first);
  protond_scope_exit("outer");
  const uint64_t current = protond_current_session();
  const protond_result stopped = protond_session_stop(first);
  protond_scope_enter("after");
  protond_scope_exit("after");
  std::printf("first %" PRIu64 " second %" PRIu64 " pause %d resume %d current %" PRIu64
              " stop %d then current %" PRIu64 ";",
              first, second, paused, resumed, current, stopped, protond_current_session());
  uint64_t more = 0;
  protond_result started = PROTOND_OK;
  for (int i = 0; started == PROTOND_OK; ++i) {
    started = protond_session_start(("more" + std::to_string(i)).c_str(), &more);
    std::printf(" %d", started);
  }
  std::printf(": %s\n", protond_last_error());
  return 0;
}
