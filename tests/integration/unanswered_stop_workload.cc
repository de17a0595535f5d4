// Stops its own session while protond does not answer: starts a session, records 100 "work"
// scopes, stops the daemon (SIGSTOP to the pid in argv[1]), calls protond_session_stop, continues
// the daemon only once that call has returned, then exports the session's Hatchet file to
// argv[2]. A stop that waited for the daemon would wait until its RPC deadline and fail; the
// shim's stop queue tells the daemon after the call returns. Prints what each call returned.
#include <signal.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "protond/shim.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: unanswered_stop_workload DAEMON_PID HATCHET_PATH\n");
    return 2;
  }
  const pid_t daemon = static_cast<pid_t>(std::atoi(argv[1]));
  uint64_t session = 0;
  if (protond_session_start("unanswered-stop", &session) != PROTOND_OK) {
    std::printf("start failed: %s\n", protond_last_error());
    return 1;
  }
  for (int i = 0; i < 100; ++i) {
    protond_scope_enter("work");
    protond_scope_exit("work");
  }
  kill(daemon, SIGSTOP);
  const protond_result stopped = protond_session_stop(session);
  const protond_result after = protond_scope_enter("after-stop");  // not the session's any more
  kill(daemon, SIGCONT);
  const protond_result exported = protond_session_export(session, "hatchet", argv[2]);
  std::printf("session %" PRIu64 " stop %d after %d export %d\n", session, stopped, after,
              exported);
  return 0;
}
