// libprotond_shim_core.so: process-wide set-up and the C ABI of protond/shim.h, behind the
// preloaded front (shim/front/front.cc), which loads this library when something needs it and
// forwards every call here through the table below (shim/front/core_api.h).
//
// At start the core creates the shared-memory region and starts recording if PROTOND_SESSION
// names a session (protonctl run), in the mode PROTOND_SESSION_MODE names. The control channel to
// the daemon (gRPC) lives in libprotond_control.so, which is loaded off the application's threads
// once the process has lived for PROTOND_CONTROL_DELAY_MS, so that short-lived processes pay
// nothing for it. Nothing here may harm the program: every failure turns profiling off for this
// process with one line on stderr.
#include "protond/shim.h"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/mode/session_mode.h"
#include "common/paths/daemon_paths.h"
#include "common/record/instrumentation_blob.h"
#include "shim/control/control_loader.h"
#include "shim/front/core_api.h"
#include "shim/gpu/gpu_tracing.h"
#include "shim/loading/env_number.h"
#include "shim/nccl/collective_plugin.h"
#ifdef PROTOND_HAS_NVTX
#include "shim/nvtx/nvtx_ranges.h"
#endif
#include "shim/python/python_stack.h"
#include "shim/ring/ring_writer.h"
#include "shim/scopes/recorder.h"
#include "shim/sessions/stop_queue.h"

namespace protond::shim {
namespace {

// What the daemon's pushed commands call (defined below, with the session calls).
extern const ProtondControlCommands kPushedCommands;

// The running shim's recorder; nullptr before the shim starts (defined below).
Recorder* ActiveRecorder();
bool LastLaunchOfThisThread(uint32_t* correlation_id);

struct Shim {
  Shim(ring::WritableRegion r, uint64_t session_id)
      : region(std::move(r)),
        control(ControlTarget{paths::ResolveSocketPath(""), region.fd(), region.bytes(), session_id,
                              &kPushedCommands}) {}
  ring::WritableRegion region;
  Recorder recorder{&region};
  ControlLoader control;
  GpuTracing gpu{&recorder};
  StopQueue stops;
  std::mutex sessions_mutex;  // serializes starting, pausing, resuming and stopping sessions
  // This process's open sessions, recording or paused, in the order they started, then zeros.
  // Written under sessions_mutex; read without it (a forked child may find it held).
  std::array<std::atomic<uint64_t>, kMaxSessions> own_sessions{};
  // The mode of each of own_sessions, at the same index, for GPU tracing when it resumes. Under
  // sessions_mutex.
  std::array<mode::SessionMode, kMaxSessions> own_modes{};
};

bool OwnsSession(Shim* shim, uint64_t session_id) {
  for (const std::atomic<uint64_t>& own : shim->own_sessions) {
    if (session_id != 0 && own.load() == session_id) return true;
  }
  return false;
}

// The earliest of this process's open sessions (0: none): the one protonctl run started, while
// it is open.
uint64_t FirstOwnSession(Shim* shim) { return shim->own_sessions[0].load(); }

// Under sessions_mutex. False when kMaxSessions sessions are open.
bool AddOwnSession(Shim* shim, uint64_t session_id, const mode::SessionMode& mode) {
  for (size_t i = 0; i < shim->own_sessions.size(); ++i) {
    if (shim->own_sessions[i].load() == 0) {
      shim->own_modes[i] = mode;
      shim->own_sessions[i].store(session_id);
      return true;
    }
  }
  return false;
}

// Under sessions_mutex. Keeps the rest in start order.
void RemoveOwnSession(Shim* shim, uint64_t session_id) {
  auto& own = shim->own_sessions;
  size_t kept = 0;
  for (size_t i = 0; i < own.size(); ++i) {
    const uint64_t id = own[i].load();
    if (id == 0 || id == session_id) continue;
    shim->own_modes[kept] = shim->own_modes[i];
    own[kept++].store(id);
  }
  while (kept < own.size()) own[kept++].store(0);
}

// Under sessions_mutex: the mode `session_id` was opened with (none for a session not open).
mode::SessionMode OwnSessionMode(Shim* shim, uint64_t session_id) {
  for (size_t i = 0; i < shim->own_sessions.size(); ++i) {
    if (shim->own_sessions[i].load() == session_id) return shim->own_modes[i];
  }
  return {};
}

// Set once by the load-time constructor; never freed, so that threads still running during exit
// never see it go away.
std::atomic<Shim*> g_shim{nullptr};

void Warn(const std::string& message) { std::fprintf(stderr, "protond: %s\n", message.c_str()); }

// The mode of the session protonctl run started (PROTOND_SESSION_MODE; protonctl checked it). One
// that does not parse is reported, and the session records without it.
mode::SessionMode InheritedSessionMode() {
  const char* text = std::getenv("PROTOND_SESSION_MODE");
  absl::StatusOr<mode::SessionMode> parsed = mode::ParseSessionMode(text != nullptr ? text : "");
  if (parsed.ok()) return *parsed;
  Warn("PROTOND_SESSION_MODE: " + std::string(parsed.status().message()) +
       "; the session records without a mode");
  return {};
}

// How long exit waits for the stop queue, and the daemon's registration, by default.
constexpr uint64_t kDefaultExitWaitMs = 3000;

void WaitForStopsAtExit();

// Runs `finish` on the stop queue's thread, after the stops queued before it. A program that
// exits right after a stop waits for it at exit, so that the daemon hears of it.
void QueueStop(Shim* shim, uint64_t session_id, std::function<void()> finish) {
  static std::once_flag wait_at_exit;
  // Registered at the first stop, after whatever the program set up before: exit runs it first.
  std::call_once(wait_at_exit, [] { std::atexit(WaitForStopsAtExit); });
  shim->stops.Enqueue(session_id, std::move(finish));
}

// Under sessions_mutex: `session_id` records nothing more from the program's threads, from now
// on. The rest, on the stop queue's thread: GPU work is delivered (all of it when tracing ends
// with the last recording session, what completed otherwise), the session gives up its slot, and
// `then` runs (telling the daemon, for a stop). The program does not wait for any of it.
void StopRecording(Shim* shim, uint64_t session_id, std::function<void()> then = nullptr) {
  shim->recorder.StopRecording(session_id);
  QueueStop(shim, session_id, [shim, session_id, then = std::move(then)] {
    shim->gpu.SessionStopped();
    shim->recorder.FinishStopping(session_id);
    if (then) then();
  });
}

// How long a start waits for stops that hold every session slot.
constexpr std::chrono::seconds kSlotWait{10};

// Under sessions_mutex: `session_id` records from now on (false: no slot came free). A stop of it
// still running is finished first, and so are the queued stops when they hold every slot.
bool StartRecording(Shim* shim, uint64_t session_id) {
  shim->stops.WaitFor(session_id);
  if (shim->recorder.StartRecording(session_id)) return true;
  shim->stops.WaitIdle(kSlotWait);
  return shim->recorder.StartRecording(session_id);
}

void DisableInForkedChild() {
  if (Shim* shim = g_shim.load()) shim->recorder.DisableForever();
}

void WaitForStopsAtExit() {
  Shim* shim = g_shim.load();
  if (shim == nullptr || shim->recorder.disabled()) return;
  const auto wait_ms = EnvNumber("PROTOND_EXIT_WAIT_MS", kDefaultExitWaitMs);
  if (!shim->stops.WaitIdle(std::chrono::milliseconds(wait_ms))) {
    Warn("exiting before the last session stop reached protond (PROTOND_EXIT_WAIT_MS=" +
         std::to_string(wait_ms) + "); that session stays running until protond sees the exit");
  }
}

// A short program may end before the daemon has mapped its region; wait a little so that what
// it recorded is not lost, but never long, and only if it recorded something.
void WaitForDaemonAtExit() {
  Shim* shim = g_shim.load();
  // A forked child has no control thread (only the thread that forked survives): nothing to do.
  if (shim == nullptr || shim->recorder.disabled()) return;
  // Only here: a forked child (disabled above) shares its parent's region, and must not mark it.
  shim->region.MarkNormalExit();
  if (FirstOwnSession(shim) != 0 && shim->region.HasRecords()) {
    std::string error;
    ProtondControl* control = shim->control.Load(&error);
    const auto wait_ms =
        static_cast<uint32_t>(EnvNumber("PROTOND_EXIT_WAIT_MS", kDefaultExitWaitMs));
    if (control == nullptr) {
      Warn("this process's profile is lost: " + error);
    } else if (!shim->control.api()->wait_registered(control, wait_ms)) {
      Warn("could not reach protond at " + shim->control.socket_path() +
           "; this process's profile is lost");
    }
  }
  shim->control.Stop(std::chrono::milliseconds(500));
}

// The core's start (core_api.h): false, with the reason in `error`, when profiling cannot run.
bool StartShim(const ProtondShimCoreStart& start, std::string* error) {
  const ring::RegionGeometry geometry{
      static_cast<uint32_t>(EnvNumber("PROTOND_LANES", ring::kDefaultLaneCount)),
      static_cast<uint32_t>(EnvNumber("PROTOND_LANE_BYTES", ring::kDefaultLaneDataBytes))};
  auto region = ring::WritableRegion::Create(geometry);
  if (!region.ok()) {
    *error = std::string(region.status().message());
    return false;
  }
  const uint64_t session_id = EnvNumber("PROTOND_SESSION", 0);
  // protonctl run --as-proton: the session starts paused, and the script's proton.start() resumes
  // it, so that the profile begins where Proton's would.
  const bool paused = session_id != 0 && EnvNumber("PROTOND_SESSION_PAUSED", 0) != 0;
  auto* shim = new Shim(std::move(*region), session_id);
  const mode::SessionMode session_mode =
      session_id != 0 ? InheritedSessionMode() : mode::SessionMode{};
  if (session_id != 0) {
    AddOwnSession(shim, session_id, session_mode);
    if (!paused) shim->recorder.StartRecording(session_id);
  }
  g_shim.store(shim);
  SetCollectiveRecorder(&ActiveRecorder, &LastLaunchOfThisThread);
  if (session_id != 0 && !paused) shim->gpu.SessionStarted(session_mode);
  pthread_atfork(nullptr, nullptr, DisableInForkedChild);
  std::atexit(WaitForDaemonAtExit);
  shim->control.StartAfter(std::chrono::milliseconds(start.control_delay_ms));
  return true;
}

Recorder* ActiveRecorder() {
  Shim* shim = g_shim.load(std::memory_order_acquire);
  return shim != nullptr ? &shim->recorder : nullptr;
}

// For NCCL's plugin: the kernel launch that carries the collective call starting now.
bool LastLaunchOfThisThread(uint32_t* correlation_id) {
  Shim* shim = g_shim.load(std::memory_order_acquire);
  const std::optional<uint32_t> launch = shim != nullptr ? shim->gpu.LastLaunch() : std::nullopt;
  if (launch.has_value()) *correlation_id = *launch;
  return launch.has_value();
}

protond_result Fail(protond_result result, const std::string& message) {
  SetLastError(message);
  return result;
}

protond_result ShimDisabled() {
  return Fail(PROTOND_ERR_UNAVAILABLE, "the protond shim is disabled in this process");
}

// Runs one session call of the control library, loading it first if needed.
template <typename Call>
protond_result CallControl(Shim* shim, Call call) {
  if (shim == nullptr) return ShimDisabled();
  std::string error;
  ProtondControl* control = shim->control.Load(&error);
  if (control == nullptr) return Fail(PROTOND_ERR_UNAVAILABLE, error);
  char message[512] = {};
  const int result = call(*shim->control.api(), control, message, sizeof(message));
  if (result != PROTOND_OK) SetLastError(message);
  return static_cast<protond_result>(result);
}

// `data` is Proton's: "tree" keeps the call tree, "trace" also every event (a Chrome trace).
// `mode_text` too (common/mode/session_mode.h); NULL is "".
protond_result StartSession(const char* name, const char* data, const char* mode_text,
                            uint64_t* session_id) {
  if (name == nullptr || data == nullptr || session_id == nullptr) {
    return Fail(PROTOND_ERR_INVALID_ARGUMENT, "session name, data and id pointer must not be NULL");
  }
  const std::string_view data_mode(data);
  if (data_mode != "tree" && data_mode != "trace") {
    return Fail(PROTOND_ERR_INVALID_ARGUMENT,
                std::string("unknown session data '") + data + "' (known: tree, trace)");
  }
  const absl::StatusOr<mode::SessionMode> session_mode =
      mode::ParseSessionMode(mode_text != nullptr ? mode_text : "");
  if (!session_mode.ok()) {
    return Fail(PROTOND_ERR_INVALID_ARGUMENT, std::string(session_mode.status().message()));
  }
  const std::string canonical_mode = mode::SessionModeText(*session_mode);
  Shim* shim = g_shim.load();
  if (shim == nullptr) return ShimDisabled();
  std::lock_guard<std::mutex> lock(shim->sessions_mutex);
  if (shim->own_sessions.back().load() != 0) {
    std::string open;
    for (const std::atomic<uint64_t>& own : shim->own_sessions) {
      open += (open.empty() ? "" : ", ") + std::to_string(own.load());
    }
    return Fail(PROTOND_ERR_UNAVAILABLE, "this process has " + std::to_string(kMaxSessions) +
                                             " sessions open already (" + open +
                                             "); stop one before starting another");
  }
  const protond_result result = CallControl(
      shim,
      [&](const ProtondControlApi& api, ProtondControl* control, char* error, size_t error_bytes) {
        return api.start_session(control, name, data_mode == "trace", canonical_mode.c_str(),
                                 session_id, error, error_bytes);
      });
  if (result == PROTOND_OK) {
    AddOwnSession(shim, *session_id, *session_mode);
    if (StartRecording(shim, *session_id)) shim->gpu.SessionStarted(*session_mode);
  }
  return result;
}

protond_result NotThisProcess(uint64_t session_id) {
  return Fail(PROTOND_ERR_INVALID_ARGUMENT,
              "session " + std::to_string(session_id) + " is not recording in this process");
}

protond_result PauseSession(uint64_t session_id) {
  Shim* shim = g_shim.load();
  if (shim == nullptr) return NotThisProcess(session_id);
  std::lock_guard<std::mutex> lock(shim->sessions_mutex);
  if (!OwnsSession(shim, session_id)) return NotThisProcess(session_id);
  if (shim->recorder.IsRecording(session_id)) StopRecording(shim, session_id);
  return PROTOND_OK;
}

protond_result ResumeSession(uint64_t session_id) {
  Shim* shim = g_shim.load();
  if (shim == nullptr) return NotThisProcess(session_id);
  std::lock_guard<std::mutex> lock(shim->sessions_mutex);
  if (!OwnsSession(shim, session_id)) return NotThisProcess(session_id);
  if (shim->recorder.IsRecording(session_id)) return PROTOND_OK;
  if (StartRecording(shim, session_id)) shim->gpu.SessionStarted(OwnSessionMode(shim, session_id));
  return PROTOND_OK;
}

// The daemon's pushed commands (protonctl start/stop --pid), on the control library's thread.
void CopyMessage(const std::string& text, char* message, size_t message_bytes) {
  if (message_bytes == 0) return;
  const size_t length = std::min(text.size(), message_bytes - 1);
  text.copy(message, length);
  message[length] = '\0';
}

// `mode_text` is the session's, as the daemon sent it.
int PushedStart(uint64_t session_id, const char* mode_text, char* message, size_t message_bytes) {
  Shim* shim = g_shim.load();
  if (shim == nullptr || session_id == 0) return PROTOND_ERR_INVALID_ARGUMENT;
  const absl::StatusOr<mode::SessionMode> session_mode = mode::ParseSessionMode(mode_text);
  if (!session_mode.ok()) {
    CopyMessage(std::string(session_mode.status().message()), message, message_bytes);
    return PROTOND_ERR_INVALID_ARGUMENT;
  }
  {
    std::lock_guard<std::mutex> lock(shim->sessions_mutex);
    if (!OwnsSession(shim, session_id) && !AddOwnSession(shim, session_id, *session_mode)) {
      CopyMessage(
          "it has " + std::to_string(kMaxSessions) + " sessions open already; stop one first",
          message, message_bytes);
      return PROTOND_ERR_UNAVAILABLE;
    }
    if (StartRecording(shim, session_id)) shim->gpu.SessionStarted(*session_mode);
  }
  CopyMessage(shim->gpu.MissingReason(), message, message_bytes);
  return PROTOND_OK;
}

// Answers once the session's GPU work is in its lanes: the daemon drains them after the answer.
int PushedStop(uint64_t session_id, char*, size_t) {
  Shim* shim = g_shim.load();
  if (shim == nullptr) return PROTOND_ERR_INVALID_ARGUMENT;
  {
    std::lock_guard<std::mutex> lock(shim->sessions_mutex);
    if (shim->recorder.IsRecording(session_id)) StopRecording(shim, session_id);
    RemoveOwnSession(shim, session_id);
  }
  shim->stops.WaitFor(session_id);
  return PROTOND_OK;  // stopping a session the process does not record into is done already
}

const ProtondControlCommands kPushedCommands = {PushedStart, PushedStop};

protond_result StopSession(uint64_t session_id) {
  Shim* shim = g_shim.load();
  if (shim == nullptr) return NotThisProcess(session_id);
  std::lock_guard<std::mutex> lock(shim->sessions_mutex);
  if (!OwnsSession(shim, session_id)) return NotThisProcess(session_id);
  // Told once the session's GPU work is in its lanes, so that the daemon stores all of it.
  auto tell_daemon = [shim, session_id] {
    const protond_result result =
        CallControl(shim, [&](const ProtondControlApi& api, ProtondControl* control, char* error,
                              size_t error_bytes) {
          return api.stop_session(control, session_id, error, error_bytes);
        });
    if (result != PROTOND_OK) {
      Warn("session " + std::to_string(session_id) + " did not stop in protond: " + LastError());
    }
  };
  if (shim->recorder.IsRecording(session_id)) {
    StopRecording(shim, session_id, tell_daemon);
  } else {
    QueueStop(shim, session_id, tell_daemon);  // paused: after its pause's deliveries
  }
  RemoveOwnSession(shim, session_id);
  return PROTOND_OK;
}

protond_result Flush() {
  Shim* shim = g_shim.load();
  // The daemon drains every lane of the process, whichever session is named.
  const uint64_t session_id = shim != nullptr ? FirstOwnSession(shim) : 0;
  if (session_id == 0) return PROTOND_INACTIVE;
  // What paused sessions were owed is delivered first ("stored at once" includes it).
  shim->stops.WaitIdle(kSlotWait);
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
  if (std::string_view(format) != "hatchet" && std::string_view(format) != "hatchet_msgpack" &&
      std::string_view(format) != "chrome_trace") {
    return Fail(PROTOND_ERR_INVALID_ARGUMENT,
                std::string("unknown export format '") + format +
                    "' (known: hatchet, hatchet_msgpack, chrome_trace)");
  }
  Shim* shim = g_shim.load();
  // A session this process stopped is complete once its stop reached the daemon.
  if (shim != nullptr) shim->stops.WaitFor(session_id);
  if (shim != nullptr && OwnsSession(shim, session_id)) {
    if (const protond_result flushed = Flush(); flushed != PROTOND_OK) return flushed;
  }
  return CallControl(shim, [&](const ProtondControlApi& api, ProtondControl* control, char* error,
                               size_t error_bytes) {
    return api.export_session(control, session_id, format, path, error, error_bytes);
  });
}

// context="python" read by the shim (protond_use_python_context): made once, with the first
// call's excluded prefix, and never freed, since a CUDA call may be walking it at any time.
std::once_flag g_python_stack_once;
PythonStack* g_python_stack = nullptr;
std::string g_python_stack_error;  // why it could not be made

uint32_t PythonContextProvider() {
  Recorder* recorder = ActiveRecorder();
  if (recorder == nullptr) return PROTOND_NO_CONTEXT;
  return g_python_stack->ContextOfThisThread(recorder->names(), PROTOND_NO_CONTEXT);
}

}  // namespace
}  // namespace protond::shim

using protond::shim::ActiveRecorder;

int protond_abi_version(void) { return PROTOND_SHIM_ABI_VERSION; }

protond_result protond_scope_enter(const char* name) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->EnterScope(name) : PROTOND_INACTIVE;
}

protond_result protond_scope_exit(const char* name) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->ExitScope(name) : PROTOND_INACTIVE;
}

protond_result protond_metric_int64(const char* name, int64_t value) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->AddInt64Metric(name, value) : PROTOND_INACTIVE;
}

protond_result protond_metric_double(const char* name, double value) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->AddDoubleMetric(name, value) : PROTOND_INACTIVE;
}

static_assert(PROTOND_MAX_VECTOR_METRIC_ELEMENTS == protond::record::kMaxVectorMetricElements);

protond_result protond_metric_int64_vector(const char* name, const int64_t* values, size_t count) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr
             ? recorder->AddVectorMetric(name, protond::record::NameClass::kInt64VectorMetric,
                                         values, count)
             : PROTOND_INACTIVE;
}

protond_result protond_metric_double_vector(const char* name, const double* values, size_t count) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr
             ? recorder->AddVectorMetric(name, protond::record::NameClass::kDoubleVectorMetric,
                                         values, count)
             : PROTOND_INACTIVE;
}

protond_result protond_state_enter(const char* name) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->EnterState(name) : PROTOND_INACTIVE;
}

protond_result protond_state_exit(void) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->ExitState() : PROTOND_INACTIVE;
}

protond_result protond_launch_enter(const char* name) {
  // The frame ends with the next kernel launch the GPU tracer sees; with no tracing, no kernel
  // would be recorded and nothing would end it.
  protond::shim::Shim* shim = protond::shim::g_shim.load(std::memory_order_acquire);
  if (shim == nullptr || !shim->gpu.tracing()) return PROTOND_INACTIVE;
  return shim->recorder.EnterLaunch(name);
}

protond_result protond_launch_exit(void) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->ExitLaunch() : PROTOND_INACTIVE;
}

static_assert(PROTOND_BUFFER_CIRCULAR ==
              static_cast<uint32_t>(protond::record::InstrumentationLayout::kCircular));
static_assert(PROTOND_BUFFER_TRITON_HOST ==
              static_cast<uint32_t>(protond::record::InstrumentationLayout::kTritonHostBuffer));

protond_result protond_instrumentation_buffer(const char* kernel_name, uint32_t device_id,
                                              uint32_t layout, const char* const* scope_names,
                                              uint32_t num_scopes, uint32_t block_bytes,
                                              uint32_t num_warps, const uint32_t* profiled_warps,
                                              uint32_t num_profiled_warps, const void* buffer,
                                              uint64_t buffer_bytes) {
  protond::shim::Shim* shim = protond::shim::g_shim.load(std::memory_order_acquire);
  if (shim == nullptr) return PROTOND_INACTIVE;
  if ((scope_names == nullptr && num_scopes != 0) || buffer == nullptr ||
      num_scopes > protond::record::kMaxInstrumentationScopes ||
      (profiled_warps == nullptr && num_profiled_warps != 0) || num_profiled_warps > num_warps) {
    protond::shim::SetLastError(
        "instrumentation buffer: scope names, profiled warps or buffer missing, over 256 scopes, "
        "or more profiled warps than warps");
    return PROTOND_ERR_INVALID_ARGUMENT;
  }
  std::vector<std::string_view> names;
  for (uint32_t i = 0; i < num_scopes; ++i) {
    names.push_back(scope_names[i] != nullptr ? scope_names[i] : "");
  }
  protond::record::InstrumentationBufferHeader header{};
  header.device_id = device_id;
  header.layout = layout;  // checked with the rest
  header.block_bytes = block_bytes;
  header.num_warps = num_warps;
  if (const std::optional<uint32_t> launch = shim->gpu.LastLaunch()) {
    header.flags = protond::record::kLaunchKnown;
    header.launch_correlation_id = *launch;
  }
  return shim->recorder.WriteInstrumentationBuffer(
      kernel_name, header, {profiled_warps, num_profiled_warps}, names,
      {static_cast<const uint8_t*>(buffer), static_cast<size_t>(buffer_bytes)});
}

protond_result protond_set_context_provider(protond_context_provider provider) {
  auto* recorder = ActiveRecorder();
  if (recorder == nullptr) return PROTOND_INACTIVE;
  recorder->SetContextProvider(provider);
  return PROTOND_OK;
}

protond_result protond_use_python_context(const char* excluded_prefix) {
  using protond::shim::g_python_stack;
  auto* recorder = ActiveRecorder();
  if (recorder == nullptr) return PROTOND_INACTIVE;
  std::call_once(protond::shim::g_python_stack_once, [&] {
    g_python_stack =
        protond::shim::PythonStack::Resolve(excluded_prefix != nullptr ? excluded_prefix : "",
                                            &protond::shim::g_python_stack_error)
            .release();
  });
  if (g_python_stack == nullptr) {
    return protond::shim::Fail(PROTOND_ERR_UNAVAILABLE,
                               "context=\"python\": " + protond::shim::g_python_stack_error);
  }
  recorder->SetContextProvider(&protond::shim::PythonContextProvider);
  return PROTOND_OK;
}

uint32_t protond_context_intern(uint32_t parent, const char* name) {
  auto* recorder = ActiveRecorder();
  if (recorder == nullptr || name == nullptr || *name == '\0' ||
      !recorder->names().IsContext(parent)) {
    return PROTOND_NO_CONTEXT;
  }
  return recorder->names().InternContext(parent, name);
}

protond_result protond_session_start(const char* name, uint64_t* session_id) {
  return protond::shim::StartSession(name, "tree", "", session_id);
}

protond_result protond_session_start_with_data(const char* name, const char* data,
                                               uint64_t* session_id) {
  return protond::shim::StartSession(name, data, "", session_id);
}

protond_result protond_session_start_with_mode(const char* name, const char* data, const char* mode,
                                               uint64_t* session_id) {
  return protond::shim::StartSession(name, data, mode, session_id);
}

protond_result protond_session_stop(uint64_t session_id) {
  return protond::shim::StopSession(session_id);
}

protond_result protond_flush(void) { return protond::shim::Flush(); }

protond_result protond_session_pause(uint64_t session_id) {
  return protond::shim::PauseSession(session_id);
}

protond_result protond_session_resume(uint64_t session_id) {
  return protond::shim::ResumeSession(session_id);
}

protond_result protond_session_export(uint64_t session_id, const char* format, const char* path) {
  return protond::shim::ExportSession(session_id, format, path);
}

uint64_t protond_current_session(void) {
  protond::shim::Shim* shim = protond::shim::g_shim.load();
  return shim != nullptr ? protond::shim::FirstOwnSession(shim) : 0;
}

const char* protond_last_error(void) { return protond::shim::LastError(); }

// protond's attach: the daemon has just loaded the shim into this running process and calls this
// on one of its threads, stopped; the front has just started this core. The work goes to the
// control loader's thread, so that the stopped thread is let go at once.
protond_result protond_shim_attach(const char* socket_path) {
  protond::shim::Shim* shim = protond::shim::g_shim.load();
  if (shim == nullptr) return protond::shim::ShimDisabled();
  if (socket_path == nullptr || *socket_path == '\0') {
    return protond::shim::Fail(PROTOND_ERR_INVALID_ARGUMENT, "attach needs protond's socket path");
  }
  std::string error;
  if (!shim->control.ConnectNow(socket_path, &error)) {
    return protond::shim::Fail(PROTOND_ERR_UNAVAILABLE, error);
  }
  return PROTOND_OK;
}

namespace protond::shim {
namespace {

// CUDA_INJECTION64_PATH's InitializeInjection, forwarded by the front: called once from cuInit.
int InitializeCudaInjection() {
  if (Shim* shim = g_shim.load()) shim->gpu.CudaInitialized();
  return 1;
}

int InitializeNvtxInjection(protond_nvtx_get_export_table get_export_table) {
#ifdef PROTOND_HAS_NVTX
  return InstallNvtxRanges(get_export_table);
#else
  (void)get_export_table;
  return 1;
#endif
}

#define PROTOND_SHIM_CALL_ENTRY(type, name, parameters, arguments, without_core) .name = &::name,
const ProtondShimCore kCore = {
    .abi_version = PROTOND_SHIM_ABI_VERSION,
    PROTOND_SHIM_CALLS(PROTOND_SHIM_CALL_ENTRY).protond_last_error = &::protond_last_error,
    .initialize_cuda_injection = &InitializeCudaInjection,
    .initialize_nvtx_injection = &InitializeNvtxInjection,
    .nccl_profiler_v5 = CollectivePluginV5(),
};
#undef PROTOND_SHIM_CALL_ENTRY

}  // namespace
}  // namespace protond::shim

// The only two symbols this library exports (core_exports.map).
extern "C" __attribute__((visibility("default"))) const ProtondShimCore* protond_shim_core_table() {
  return &protond::shim::kCore;
}

extern "C" __attribute__((visibility("default"))) const ProtondShimCore* protond_shim_core_start(
    const ProtondShimCoreStart* start, char* error, size_t error_bytes) {
  std::string reason;
  if (protond::shim::StartShim(*start, &reason)) return &protond::shim::kCore;
  protond::shim::CopyMessage(reason, error, error_bytes);
  return nullptr;
}
