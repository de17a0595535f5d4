// libprotond_shim.so: process-wide set-up at load time and the C ABI of protond/shim.h.
//
// At load the shim creates the shared-memory region and starts recording if PROTOND_SESSION
// names a session (protonctl run). The control channel to the daemon (gRPC) lives in
// libprotond_control.so, which is loaded off the application's threads once the process has lived
// for PROTOND_CONTROL_DELAY_MS, so that short-lived processes pay nothing for it. Nothing here may
// harm the program: every failure turns profiling off for this process with one line on stderr.
#include "protond/shim.h"

#include <pthread.h>
#include <sys/single_threaded.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>

#include "client-lib/cpp/daemon_paths.h"
#include "shim/control/control_loader.h"
#include "shim/gpu/gpu_tracing.h"
#include "shim/loading/sibling_library.h"
#ifdef PROTOND_HAS_NVTX
#include "shim/nvtx/nvtx_ranges.h"
#endif
#include "shim/ring/ring_writer.h"
#include "shim/scopes/recorder.h"

namespace protond::shim {
namespace {

struct Shim {
  Shim(ring::WritableRegion r, uint64_t session_id)
      : region(std::move(r)),
        control(ControlTarget{client::ResolveSocketPath(""), region.fd(), region.bytes(),
                              session_id}) {}
  ring::WritableRegion region;
  Recorder recorder{&region};
  ControlLoader control;
  GpuTracing gpu{&recorder};
  std::mutex pause_mutex;  // serializes pausing, resuming and stopping
  // A session of this process that records nothing for now (written under pause_mutex).
  std::atomic<uint64_t> paused_session{0};
};

// The session this process records into, whether it is paused or not (0: none).
uint64_t OwnSession(Shim* shim) {
  const uint64_t recording = shim->recorder.session_id();
  return recording != 0 ? recording : shim->paused_session.load();
}

// Set once by the load-time constructor; never freed, so that threads still running during exit
// never see it go away.
std::atomic<Shim*> g_shim{nullptr};

void Warn(const std::string& message) { std::fprintf(stderr, "protond: %s\n", message.c_str()); }

uint64_t EnvUint(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-') {
    Warn(std::string(name) + "='" + text + "' is not a number; using " + std::to_string(fallback));
    return fallback;
  }
  return value;
}

void DisableInForkedChild() {
  if (Shim* shim = g_shim.load()) shim->recorder.DisableForever();
}

// A short program may end before the daemon has mapped its region; wait a little so that what
// it recorded is not lost, but never long, and only if it recorded something.
void WaitForDaemonAtExit() {
  Shim* shim = g_shim.load();
  // A forked child has no control thread (only the thread that forked survives): nothing to do.
  if (shim == nullptr || shim->recorder.disabled()) return;
  if (OwnSession(shim) != 0 && shim->region.HasRecords()) {
    std::string error;
    ProtondControl* control = shim->control.Load(&error);
    const auto wait_ms = static_cast<uint32_t>(EnvUint("PROTOND_EXIT_WAIT_MS", 3000));
    if (control == nullptr) {
      Warn("this process's profile is lost: " + error);
    } else if (!shim->control.api()->wait_registered(control, wait_ms)) {
      Warn("could not reach protond at " + shim->control.socket_path() +
           "; this process's profile is lost");
    }
  }
  shim->control.Stop(std::chrono::milliseconds(500));
}

[[gnu::constructor]] void LoadShim() {
  if (EnvUint("PROTOND_DISABLE", 0) != 0) return;
  const ring::RegionGeometry geometry{
      static_cast<uint32_t>(EnvUint("PROTOND_LANES", ring::kDefaultLaneCount)),
      static_cast<uint32_t>(EnvUint("PROTOND_LANE_BYTES", ring::kDefaultLaneDataBytes))};
  auto region = ring::WritableRegion::Create(geometry);
  if (!region.ok()) {
    Warn("profiling is off: " + std::string(region.status().message()));
    return;
  }
  const uint64_t session_id = EnvUint("PROTOND_SESSION", 0);
  // protonctl run --as-proton: the session starts paused, and the script's proton.start() resumes
  // it, so that the profile begins where Proton's would.
  const bool paused = session_id != 0 && EnvUint("PROTOND_SESSION_PAUSED", 0) != 0;
  auto* shim = new Shim(std::move(*region), session_id);
  shim->recorder.Activate(paused ? 0 : session_id);
  if (paused) shim->paused_session = session_id;
  g_shim.store(shim);
  // The CUDA driver loads its injection library at initialization and calls InitializeInjection:
  // that is how the shim learns that the process uses CUDA. NVTX likewise loads its injection at
  // the first NVTX call, and the shim records NVTX ranges as scopes. Another tool's injection is
  // kept. setenv races with getenv on other threads, so only a shim loaded at start-up (preloaded
  // or linked: no thread yet) sets them; one loaded later by dlopen relies on libcuda being
  // loaded, and records no NVTX ranges.
  const std::string self = OwnLibraryPath();
  if (__libc_single_threaded && !self.empty()) {
    setenv("CUDA_INJECTION64_PATH", self.c_str(), /*overwrite=*/0);
#ifdef PROTOND_HAS_NVTX
    if (NvtxRangesEnabled()) setenv("NVTX_INJECTION64_PATH", self.c_str(), /*overwrite=*/0);
#endif
  }
  if (session_id != 0 && !paused) shim->gpu.SessionStarted();
  pthread_atfork(nullptr, nullptr, DisableInForkedChild);
  std::atexit(WaitForDaemonAtExit);
  shim->control.StartAfter(std::chrono::milliseconds(EnvUint("PROTOND_CONTROL_DELAY_MS", 200)));
}

Recorder* ActiveRecorder() {
  Shim* shim = g_shim.load(std::memory_order_acquire);
  return shim != nullptr ? &shim->recorder : nullptr;
}

protond_result Fail(protond_result result, const std::string& message) {
  SetLastError(message);
  return result;
}

// Runs one session call of the control library, loading it first if needed.
template <typename Call>
protond_result CallControl(Shim* shim, Call call) {
  if (shim == nullptr) {
    return Fail(PROTOND_ERR_UNAVAILABLE, "the protond shim is disabled in this process");
  }
  std::string error;
  ProtondControl* control = shim->control.Load(&error);
  if (control == nullptr) return Fail(PROTOND_ERR_UNAVAILABLE, error);
  char message[512] = {};
  const int result = call(*shim->control.api(), control, message, sizeof(message));
  if (result != PROTOND_OK) SetLastError(message);
  return static_cast<protond_result>(result);
}

// `data` is Proton's: "tree" keeps the call tree, "trace" also every event (a Chrome trace).
protond_result StartSession(const char* name, const char* data, uint64_t* session_id) {
  if (name == nullptr || data == nullptr || session_id == nullptr) {
    return Fail(PROTOND_ERR_INVALID_ARGUMENT, "session name, data and id pointer must not be NULL");
  }
  const std::string_view data_mode(data);
  if (data_mode != "tree" && data_mode != "trace") {
    return Fail(PROTOND_ERR_INVALID_ARGUMENT,
                std::string("unknown session data '") + data + "' (known: tree, trace)");
  }
  Shim* shim = g_shim.load();
  const protond_result result = CallControl(shim, [&](const ProtondControlApi& api,
                                                      ProtondControl* control, char* error,
                                                      size_t error_bytes) {
    return api.start_session(control, name, data_mode == "trace", session_id, error, error_bytes);
  });
  if (result == PROTOND_OK) {
    shim->recorder.Activate(*session_id);
    shim->gpu.SessionStarted();
  }
  return result;
}

protond_result NotThisProcess(uint64_t session_id) {
  return Fail(PROTOND_ERR_INVALID_ARGUMENT,
              "session " + std::to_string(session_id) + " is not recording in this process");
}

protond_result PauseSession(uint64_t session_id) {
  Shim* shim = g_shim.load();
  if (shim == nullptr || session_id == 0) return NotThisProcess(session_id);
  std::lock_guard<std::mutex> lock(shim->pause_mutex);
  if (shim->paused_session == session_id) return PROTOND_OK;
  if (shim->recorder.session_id() != session_id) return NotThisProcess(session_id);
  shim->gpu.SessionStopping();
  shim->recorder.Activate(0);
  shim->paused_session = session_id;
  return PROTOND_OK;
}

protond_result ResumeSession(uint64_t session_id) {
  Shim* shim = g_shim.load();
  if (shim == nullptr || session_id == 0) return NotThisProcess(session_id);
  std::lock_guard<std::mutex> lock(shim->pause_mutex);
  if (shim->recorder.session_id() == session_id) return PROTOND_OK;
  if (shim->paused_session != session_id) return NotThisProcess(session_id);
  shim->paused_session = 0;
  shim->recorder.Activate(session_id);
  shim->gpu.SessionStarted();
  return PROTOND_OK;
}

protond_result StopSession(uint64_t session_id) {
  Shim* shim = g_shim.load();
  if (shim == nullptr || session_id == 0) return NotThisProcess(session_id);
  {
    std::lock_guard<std::mutex> lock(shim->pause_mutex);
    if (OwnSession(shim) != session_id) return NotThisProcess(session_id);
    shim->paused_session = 0;
    shim->gpu.SessionStopping();
    shim->recorder.Activate(0);
  }
  return CallControl(shim, [&](const ProtondControlApi& api, ProtondControl* control, char* error,
                               size_t error_bytes) {
    return api.stop_session(control, session_id, error, error_bytes);
  });
}

protond_result Flush() {
  Shim* shim = g_shim.load();
  const uint64_t session_id = shim != nullptr ? OwnSession(shim) : 0;
  if (session_id == 0) return PROTOND_INACTIVE;
  shim->gpu.Flush();
  return CallControl(shim, [&](const ProtondControlApi& api, ProtondControl* control, char* error,
                               size_t error_bytes) {
    return api.flush_session(control, session_id, error, error_bytes);
  });
}

protond_result ExportSession(uint64_t session_id, const char* format, const char* path) {
  if (format == nullptr || path == nullptr || *path == '\0') {
    return Fail(PROTOND_ERR_INVALID_ARGUMENT, "export needs a format and a non-empty path");
  }
  if (std::string_view(format) != "hatchet" && std::string_view(format) != "chrome_trace") {
    return Fail(PROTOND_ERR_INVALID_ARGUMENT, std::string("unknown export format '") + format +
                                                  "' (known: hatchet, chrome_trace)");
  }
  Shim* shim = g_shim.load();
  if (shim != nullptr && session_id != 0 && OwnSession(shim) == session_id) {
    if (const protond_result flushed = Flush(); flushed != PROTOND_OK) return flushed;
  }
  return CallControl(shim, [&](const ProtondControlApi& api, ProtondControl* control, char* error,
                               size_t error_bytes) {
    return api.export_session(control, session_id, format, path, error, error_bytes);
  });
}

}  // namespace
}  // namespace protond::shim

using protond::shim::ActiveRecorder;

#define PROTOND_EXPORT extern "C" __attribute__((visibility("default")))

PROTOND_EXPORT int protond_abi_version(void) { return PROTOND_SHIM_ABI_VERSION; }

PROTOND_EXPORT protond_result protond_scope_enter(const char* name) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->EnterScope(name) : PROTOND_INACTIVE;
}

PROTOND_EXPORT protond_result protond_scope_exit(const char* name) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->ExitScope(name) : PROTOND_INACTIVE;
}

PROTOND_EXPORT protond_result protond_metric_int64(const char* name, int64_t value) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->AddInt64Metric(name, value) : PROTOND_INACTIVE;
}

PROTOND_EXPORT protond_result protond_metric_double(const char* name, double value) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->AddDoubleMetric(name, value) : PROTOND_INACTIVE;
}

PROTOND_EXPORT protond_result protond_state_enter(const char* name) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->EnterState(name) : PROTOND_INACTIVE;
}

PROTOND_EXPORT protond_result protond_state_exit(void) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->ExitState() : PROTOND_INACTIVE;
}

PROTOND_EXPORT protond_result protond_launch_enter(const char* name) {
  // The frame ends with the next kernel launch the GPU tracer sees; with no tracing, no kernel
  // would be recorded and nothing would end it.
  protond::shim::Shim* shim = protond::shim::g_shim.load(std::memory_order_acquire);
  if (shim == nullptr || !shim->gpu.tracing()) return PROTOND_INACTIVE;
  return shim->recorder.EnterLaunch(name);
}

PROTOND_EXPORT protond_result protond_launch_exit(void) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->ExitLaunch() : PROTOND_INACTIVE;
}

PROTOND_EXPORT protond_result protond_set_context_provider(protond_context_provider provider) {
  auto* recorder = ActiveRecorder();
  if (recorder == nullptr) return PROTOND_INACTIVE;
  recorder->SetContextProvider(provider);
  return PROTOND_OK;
}

PROTOND_EXPORT uint32_t protond_context_intern(uint32_t parent, const char* name) {
  auto* recorder = ActiveRecorder();
  if (recorder == nullptr || name == nullptr || *name == '\0' ||
      !recorder->names().IsContext(parent)) {
    return PROTOND_NO_CONTEXT;
  }
  return recorder->names().InternContext(parent, name);
}

PROTOND_EXPORT protond_result protond_session_start(const char* name, uint64_t* session_id) {
  return protond::shim::StartSession(name, "tree", session_id);
}

PROTOND_EXPORT protond_result protond_session_start_with_data(const char* name, const char* data,
                                                              uint64_t* session_id) {
  return protond::shim::StartSession(name, data, session_id);
}

PROTOND_EXPORT protond_result protond_session_stop(uint64_t session_id) {
  return protond::shim::StopSession(session_id);
}

PROTOND_EXPORT protond_result protond_flush(void) { return protond::shim::Flush(); }

PROTOND_EXPORT protond_result protond_session_pause(uint64_t session_id) {
  return protond::shim::PauseSession(session_id);
}

PROTOND_EXPORT protond_result protond_session_resume(uint64_t session_id) {
  return protond::shim::ResumeSession(session_id);
}

PROTOND_EXPORT protond_result protond_session_export(uint64_t session_id, const char* format,
                                                     const char* path) {
  return protond::shim::ExportSession(session_id, format, path);
}

PROTOND_EXPORT uint64_t protond_current_session(void) {
  protond::shim::Shim* shim = protond::shim::g_shim.load();
  return shim != nullptr ? protond::shim::OwnSession(shim) : 0;
}

PROTOND_EXPORT const char* protond_last_error(void) { return protond::shim::LastError(); }

// The CUDA driver's entry point for CUDA_INJECTION64_PATH, called once from cuInit.
PROTOND_EXPORT int InitializeInjection(void) {
  if (auto* shim = protond::shim::g_shim.load()) shim->gpu.CudaInitialized();
  return 1;
}
