// Starts and stops its own session through the shim's C API (as the Python package will), with
// no help from protonctl: prints the session id, or the error, and exits 0 either way.
#include <cinttypes>
#include <cstdio>

#include "protond/shim.h"

int main() {
  uint64_t session = 0;
  if (protond_session_start("in-process", &session) != PROTOND_OK) {
    std::printf("start failed: %s\n", protond_last_error());
    return 0;
  }
  for (int i = 0; i < 5; ++i) {
    protond_scope_enter("work");
    protond_metric_int64("items", 3);
    protond_scope_exit("work");
  }
  const protond_result flushed = protond_flush();
  const protond_result stopped = protond_session_stop(session);
  std::printf("session %" PRIu64 " flush %d stop %d\n", session, flushed, stopped);
  return 0;
}
