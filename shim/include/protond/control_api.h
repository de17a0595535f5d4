// The internal ABI between libprotond_shim.so (the recorder, preloaded into every profiled
// process) and libprotond_control.so (the gRPC control channel). The shim loads the control
// library with dlopen from a background thread, so that a process pays for gRPC only when it
// lives long enough to need it, never on its own threads at start-up. Both libraries come from one
// build; kControlApiVersion guards against mixing builds.
#ifndef PROTOND_CONTROL_API_H_
#define PROTOND_CONTROL_API_H_

#include <stddef.h>
#include <stdint.h>

extern "C" {

inline constexpr uint32_t kControlApiVersion = 5;
inline constexpr char kControlLibraryName[] = "libprotond_control.so";
inline constexpr char kControlApiSymbol[] = "protond_control_api_v5";

struct ProtondControl;  // one registration of this process, owned by the control library

// What the shim does when the daemon pushes a command (protonctl start/stop --pid). Called on the
// control library's thread. Each returns a protond_result; `message` gets why it failed or, on
// success, what the session will lack (for example, no GPU activity because CUPTI is held).
struct ProtondControlCommands {
  // `mode`: the session's (common/mode/session_mode.h), as the daemon sent it; the shim parses it.
  int (*start_recording)(uint64_t session_id, const char* mode, char* message,
                         size_t message_bytes);
  int (*stop_recording)(uint64_t session_id, char* message, size_t message_bytes);
};

struct ProtondControlApi {
  uint32_t version;  // kControlApiVersion
  // Registers the process (its region: a memfd descriptor and size) in the background, and
  // carries out the commands the daemon pushes with `commands` (which outlives the control).
  ProtondControl* (*start)(const char* socket_path, int region_fd, uint64_t region_bytes,
                           uint64_t session_id, const ProtondControlCommands* commands);
  // True once the daemon has mapped the region; waits at most `timeout_ms`.
  bool (*wait_registered)(ProtondControl* control, uint32_t timeout_ms);
  // Ends the registration; waits at most `timeout_ms` for its thread.
  void (*stop)(ProtondControl* control, uint32_t timeout_ms);
  // Session calls. Return a protond_result; on failure `error` holds the reason.
  // `trace`: the session keeps every event (Proton's data="trace"), not only the tree. `mode`:
  // the session's, which the shim has checked ("" for none).
  int (*start_session)(ProtondControl* control, const char* name, bool trace, const char* mode,
                       uint64_t* session_id, char* error, size_t error_bytes);
  int (*stop_session)(ProtondControl* control, uint64_t session_id, char* error,
                      size_t error_bytes);
  int (*flush_session)(ProtondControl* control, uint64_t session_id, char* error,
                       size_t error_bytes);
  // Writes the session to `path` in `format`: "hatchet" (Proton's Hatchet JSON of the stored
  // tree), "hatchet_msgpack" (the same in MessagePack) or "chrome_trace" (Proton's Chrome trace
  // of a trace session's events).
  int (*export_session)(ProtondControl* control, uint64_t session_id, const char* format,
                        const char* path, char* error, size_t error_bytes);
};

}  // extern "C"

#endif  // PROTOND_CONTROL_API_H_
