// libprotond_shim.so: process-wide set-up at load time and the C ABI of protond/shim.h.
//
// At load the shim creates the shared-memory region, starts recording if PROTOND_SESSION names a
// session (protonctl run), and registers with the daemon in the background. Nothing here may
// harm the program: every failure turns profiling off for this process with one line on stderr.
#include "protond/shim.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "client-lib/cpp/client.h"
#include "client-lib/cpp/daemon_paths.h"
#include "shim/control/registration.h"
#include "shim/ring/ring_writer.h"
#include "shim/scopes/recorder.h"

namespace protond::shim {
namespace {

struct Shim {
  explicit Shim(ring::WritableRegion r) : region(std::move(r)) {}
  ring::WritableRegion region;
  Recorder recorder{&region};
  std::unique_ptr<Registration> registration;
};

// Set once by the load-time constructor; never freed, so that threads still running during exit
// never see it go away.
std::atomic<Shim*> g_shim{nullptr};

void Warn(const std::string& message) { std::fprintf(stderr, "protond: %s\n", message.c_str()); }

uint64_t EnvUint(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  uint64_t value;
  if (text == nullptr || *text == '\0') return fallback;
  if (!absl::SimpleAtoi(text, &value)) {
    Warn(std::string(name) + "='" + text + "' is not a number; using " + std::to_string(fallback));
    return fallback;
  }
  return value;
}

std::vector<std::string> ReadArgv() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> argv;
  for (std::string arg; std::getline(in, arg, '\0');) argv.push_back(arg);
  return argv;
}

v1::RegisterRequest MakeRegisterRequest(const Shim& shim, uint64_t session_id) {
  v1::RegisterRequest request;
  request.set_pid(static_cast<uint32_t>(getpid()));
  request.set_uid(static_cast<uint32_t>(getuid()));
  request.set_region_fd(shim.region.fd());
  request.set_region_bytes(shim.region.bytes());
  request.set_session_id(session_id);
  for (const std::string& arg : ReadArgv()) request.add_argv(arg);
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  request.set_hostname(host);
  return request;
}

void DisableInForkedChild() {
  if (Shim* shim = g_shim.load()) shim->recorder.DisableForever();
}

// A short program may end before the daemon has mapped its region; wait a little so that what
// it recorded is not lost, but never long.
void WaitForDaemonAtExit() {
  Shim* shim = g_shim.load();
  // A forked child has no control thread (only the thread that forked survives): nothing to do.
  if (shim == nullptr || shim->registration == nullptr || shim->recorder.disabled()) return;
  const auto wait = std::chrono::milliseconds(EnvUint("PROTOND_EXIT_WAIT_MS", 3000));
  if (shim->recorder.session_id() != 0 && shim->region.HasRecords() &&
      !shim->registration->registered() && !shim->registration->WaitRegistered(wait)) {
    Warn("could not reach protond at " + shim->registration->socket_path() +
         "; this process's profile is lost");
  }
  shim->registration->Stop(std::chrono::milliseconds(500));
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
  auto* shim = new Shim(std::move(*region));
  const uint64_t session_id = EnvUint("PROTOND_SESSION", 0);
  shim->recorder.Activate(session_id);
  shim->registration = std::make_unique<Registration>(client::ResolveSocketPath(""),
                                                      MakeRegisterRequest(*shim, session_id));
  g_shim.store(shim);
  pthread_atfork(nullptr, nullptr, DisableInForkedChild);
  std::atexit(WaitForDaemonAtExit);
  shim->registration->Start();
}

Recorder* ActiveRecorder() {
  Shim* shim = g_shim.load(std::memory_order_acquire);
  return shim != nullptr ? &shim->recorder : nullptr;
}

protond_result Unavailable(const std::string& message) {
  SetLastError(message);
  return PROTOND_ERR_UNAVAILABLE;
}

// The daemon attaches a session to the process that started it, so it must know the process.
absl::StatusOr<client::Client> RegisteredClient(Shim* shim) {
  if (shim == nullptr)
    return absl::UnavailableError("the protond shim is disabled in this process");
  if (!shim->registration->WaitRegistered(std::chrono::seconds(3))) {
    const std::string refusal = shim->registration->refusal();
    return absl::UnavailableError(
        refusal.empty() ? "no protond answers at " + shim->registration->socket_path() : refusal);
  }
  return client::Client(shim->registration->socket_path(), std::chrono::seconds(30));
}

protond_result StartSession(const char* name, uint64_t* session_id) {
  if (name == nullptr || session_id == nullptr) {
    SetLastError("session name and id pointer must not be NULL");
    return PROTOND_ERR_INVALID_ARGUMENT;
  }
  Shim* shim = g_shim.load();
  auto client = RegisteredClient(shim);
  if (!client.ok()) return Unavailable(std::string(client.status().message()));
  auto session = client->StartSession(name);
  if (!session.ok()) return Unavailable(std::string(session.status().message()));
  shim->recorder.Activate(session->id());
  *session_id = session->id();
  return PROTOND_OK;
}

protond_result StopSession(uint64_t session_id) {
  Shim* shim = g_shim.load();
  if (shim == nullptr || session_id == 0 || shim->recorder.session_id() != session_id) {
    SetLastError("session " + std::to_string(session_id) + " is not recording in this process");
    return PROTOND_ERR_INVALID_ARGUMENT;
  }
  shim->recorder.Activate(0);
  auto client = RegisteredClient(shim);
  if (!client.ok()) return Unavailable(std::string(client.status().message()));
  auto session = client->StopSession(session_id);
  return session.ok() ? PROTOND_OK : Unavailable(std::string(session.status().message()));
}

protond_result Flush() {
  Shim* shim = g_shim.load();
  const uint64_t session_id = shim != nullptr ? shim->recorder.session_id() : 0;
  if (session_id == 0) return PROTOND_INACTIVE;
  auto client = RegisteredClient(shim);
  if (!client.ok()) return Unavailable(std::string(client.status().message()));
  auto session = client->FlushSession(session_id);
  return session.ok() ? PROTOND_OK : Unavailable(std::string(session.status().message()));
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

PROTOND_EXPORT uint64_t protond_current_session(void) {
  auto* recorder = ActiveRecorder();
  return recorder != nullptr ? recorder->session_id() : 0;
}

PROTOND_EXPORT const char* protond_last_error(void) { return protond::shim::LastError(); }

PROTOND_EXPORT protond_result protond_session_start(const char* name, uint64_t* session_id) {
  return protond::shim::StartSession(name, session_id);
}

PROTOND_EXPORT protond_result protond_session_stop(uint64_t session_id) {
  return protond::shim::StopSession(session_id);
}

PROTOND_EXPORT protond_result protond_flush(void) { return protond::shim::Flush(); }
