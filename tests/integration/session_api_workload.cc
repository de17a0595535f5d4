// Drives its own session through the shim's C API (as the Python package does), with no help
// from protonctl: start, 5 recorded "work" scopes, a pause during which 3 more are not recorded,
// resume, 2 more, stop, then export of the tree as Proton's Hatchet file to argv[1]. Prints what
// each call returned, or the start error, and exits 0 either way.
#include <cinttypes>
#include <cstdio>

#include "protond/shim.h"

namespace {

void Work(int times) {
  for (int i = 0; i < times; ++i) {
    protond_scope_enter("work");
    protond_metric_int64("items", 3);
    protond_scope_exit("work");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* hatchet_path = argc > 1 ? argv[1] : "in-process.hatchet";
  uint64_t session = 0;
  if (protond_session_start("in-process", &session) != PROTOND_OK) {
    std::printf("start failed: %s\n", protond_last_error());
    return 0;
  }
  Work(5);
  const protond_result paused = protond_session_pause(session);
  Work(3);
  const protond_result resumed = protond_session_resume(session);
  Work(2);
  const protond_result foreign = protond_session_pause(session + 100);
  const protond_result flushed = protond_flush();
  const protond_result stopped = protond_session_stop(session);
  const protond_result exported = protond_session_export(session, "hatchet", hatchet_path);
  const protond_result bad_format = protond_session_export(session, "xml", hatchet_path);
  const protond_result bad_path =
      protond_session_export(session, "hatchet", "/nonexistent-dir/x.hatchet");
  std::printf("session %" PRIu64 " pause %d resume %d foreign %d flush %d stop %d export %d",
              session, paused, resumed, foreign, flushed, stopped, exported);
  std::printf(" bad-format %d bad-path %d: %s\n", bad_format, bad_path, protond_last_error());
  return 0;
}
