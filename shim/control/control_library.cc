// libprotond_control.so: the control channel behind control_api.h (registration and the
// in-process session calls), loaded by the shim with dlopen. Exports only the API table.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string>

#include "client-lib/cpp/client.h"
#include "protond/shim.h"
#include "shim/control/control_api.h"
#include "shim/control/registration.h"

struct ProtondControl {
  protond::shim::Registration registration;
};

namespace protond::shim {
namespace {

v1::RegisterRequest MakeRegisterRequest(int region_fd, uint64_t region_bytes, uint64_t session_id) {
  v1::RegisterRequest request;
  request.set_pid(static_cast<uint32_t>(getpid()));
  request.set_uid(static_cast<uint32_t>(getuid()));
  request.set_region_fd(region_fd);
  request.set_region_bytes(region_bytes);
  request.set_session_id(session_id);
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  for (std::string arg; std::getline(cmdline, arg, '\0');) request.add_argv(arg);
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  request.set_hostname(host);
  return request;
}

int Unavailable(const std::string& message, char* error, size_t error_bytes) {
  if (error_bytes > 0) {
    std::strncpy(error, message.c_str(), error_bytes - 1);
    error[error_bytes - 1] = '\0';
  }
  return PROTOND_ERR_UNAVAILABLE;
}

// The daemon attaches a session to the process that started it, so it must know the process.
absl::StatusOr<client::Client> RegisteredClient(ProtondControl* control) {
  Registration& registration = control->registration;
  if (!registration.WaitRegistered(std::chrono::seconds(3))) {
    const std::string refusal = registration.refusal();
    return absl::UnavailableError(
        refusal.empty() ? "no protond answers at " + registration.socket_path() : refusal);
  }
  return client::Client(registration.socket_path(), std::chrono::seconds(30));
}

template <typename Call>
int WithClient(ProtondControl* control, char* error, size_t error_bytes, Call call) {
  absl::StatusOr<client::Client> client = RegisteredClient(control);
  if (!client.ok()) return Unavailable(std::string(client.status().message()), error, error_bytes);
  absl::StatusOr<v1::Session> session = call(*client);
  if (!session.ok()) {
    return Unavailable(std::string(session.status().message()), error, error_bytes);
  }
  return PROTOND_OK;
}

ProtondControl* Start(const char* socket_path, int region_fd, uint64_t region_bytes,
                      uint64_t session_id) {
  auto* control = new ProtondControl{
      Registration(socket_path, MakeRegisterRequest(region_fd, region_bytes, session_id))};
  control->registration.Start();
  return control;
}

bool WaitRegistered(ProtondControl* control, uint32_t timeout_ms) {
  return control->registration.WaitRegistered(std::chrono::milliseconds(timeout_ms));
}

// The control object is not freed: threads of the process may still be exiting around it.
void Stop(ProtondControl* control, uint32_t timeout_ms) {
  control->registration.Stop(std::chrono::milliseconds(timeout_ms));
}

int StartSession(ProtondControl* control, const char* name, uint64_t* session_id, char* error,
                 size_t error_bytes) {
  return WithClient(control, error, error_bytes, [&](client::Client& client) {
    absl::StatusOr<v1::Session> session = client.StartSession(name);
    if (session.ok()) *session_id = session->id();
    return session;
  });
}

int StopSession(ProtondControl* control, uint64_t session_id, char* error, size_t error_bytes) {
  return WithClient(control, error, error_bytes,
                    [&](client::Client& client) { return client.StopSession(session_id); });
}

int FlushSession(ProtondControl* control, uint64_t session_id, char* error, size_t error_bytes) {
  return WithClient(control, error, error_bytes,
                    [&](client::Client& client) { return client.FlushSession(session_id); });
}

constexpr ProtondControlApi kApi = {kControlApiVersion, Start,       WaitRegistered, Stop,
                                    StartSession,       StopSession, FlushSession};

}  // namespace
}  // namespace protond::shim

extern "C" __attribute__((visibility("default"))) const ProtondControlApi*
protond_control_api_v1() {
  return &protond::shim::kApi;
}
