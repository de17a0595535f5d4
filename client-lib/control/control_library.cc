// libprotond_control.so: the control channel behind control_api.h (registration and the
// in-process session calls), loaded by the shim with dlopen. Exports only the API table.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "client-lib/control/daemon_autostart.h"
#include "client-lib/control/registration.h"
#include "client-lib/control/shared_client.h"
#include "client-lib/cpp/client.h"
#include "client-lib/cpp/socket_probe.h"
#include "common/files/output_file.h"
#include "common/status/status_macros.h"
#include "protond/control_api.h"
#include "protond/shim.h"
#include "view/export/chrome_trace.h"
#include "view/hatchet/hatchet_writer.h"

struct ProtondControl {
  protond::client::Registration registration;
  protond::client::SharedClient client;  // every call's, from the program's and the stop thread
};

namespace protond::client {
namespace {

constexpr size_t kMaxJobValueBytes = 256;

// Where the process sits in a job, from the environment it was started with (/proc/self/environ:
// reading it races with no setenv on the application's threads).
v1::Job JobFromEnvironment() {
  v1::Job job;
  const std::pair<std::string_view, std::string* (v1::Job::*)()> fields[] = {
      {"RANK", &v1::Job::mutable_rank},
      {"LOCAL_RANK", &v1::Job::mutable_local_rank},
      {"WORLD_SIZE", &v1::Job::mutable_world_size},
      {"SLURM_JOB_ID", &v1::Job::mutable_slurm_job_id},
      {"SLURM_STEP_ID", &v1::Job::mutable_slurm_step_id},
      {"POD_NAME", &v1::Job::mutable_pod},
      {"POD_NAMESPACE", &v1::Job::mutable_pod_namespace},
      {"CUDA_VISIBLE_DEVICES", &v1::Job::mutable_cuda_visible_devices}};
  std::ifstream environ("/proc/self/environ", std::ios::binary);
  for (std::string entry; std::getline(environ, entry, '\0');) {
    const size_t equals = entry.find('=');
    if (equals == std::string::npos) continue;
    for (const auto& [name, field] : fields) {
      if (std::string_view(entry).substr(0, equals) == name) {
        *(job.*field)() = entry.substr(equals + 1, kMaxJobValueBytes);
      }
    }
  }
  return job;
}

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
  *request.mutable_job() = JobFromEnvironment();
  return request;
}

// Carries out a pushed command through the shim's callbacks.
v1::CommandResult RunCommand(const ProtondControlCommands& commands,
                             const v1::ControlCommand& command) {
  char message[512] = {};
  int result = PROTOND_ERR_INVALID_ARGUMENT;
  if (command.has_start_recording()) {
    const v1::StartRecording& start = command.start_recording();
    result = commands.start_recording(start.session_id(), start.mode().c_str(), message,
                                      sizeof(message));
  } else if (command.has_stop_recording()) {
    result =
        commands.stop_recording(command.stop_recording().session_id(), message, sizeof(message));
  } else {
    std::snprintf(message, sizeof(message), "this protond shim does not know command %d",
                  static_cast<int>(command.command_case()));
  }
  v1::CommandResult out;
  out.set_ok(result == PROTOND_OK);
  out.set_message(message);
  return out;
}

int Unavailable(const std::string& message, char* error, size_t error_bytes) {
  if (error_bytes > 0) {
    std::strncpy(error, message.c_str(), error_bytes - 1);
    error[error_bytes - 1] = '\0';
  }
  return PROTOND_ERR_UNAVAILABLE;
}

// The daemon attaches a session to the process that started it, so it must know the process.
// A daemon that is merely slow gets the whole deadline; with no daemon at the socket at all this
// fails at once, or, for a session start, first starts one (daemon_autostart.h).
absl::StatusOr<std::shared_ptr<client::Client>> RegisteredClient(ProtondControl* control,
                                                                 bool may_start_daemon) {
  Registration& registration = control->registration;
  const std::string& socket_path = registration.socket_path();
  if (!registration.registered()) {
    ASSIGN_OR_RETURN(const std::string started, EnsureDaemon(socket_path, may_start_daemon));
    if (!started.empty()) {
      // As protonctl run says it: the program's user learns where the daemon and its store are.
      std::fprintf(stderr, "protond: %s\n", started.c_str());
      registration.RetryNow();
    }
  }
  if (!registration.WaitRegistered(std::chrono::seconds(3))) {
    const std::string refusal = registration.refusal();
    return absl::UnavailableError(
        refusal.empty()
            ? client::DescribeSilentSocket(socket_path, client::ProbeSocket(socket_path))
            : refusal);
  }
  return control->client.Get(registration.registrations());
}

// With PROTOND_CONTROL_TIMING=1 in the environment, each session call writes the time of its
// parts on stderr, one line per call, for bench/finalize_cost.py. Otherwise it does nothing.
class CallTiming {
 public:
  explicit CallTiming(const char* call) : call_(call) {}
  ~CallTiming() {
    if (Enabled()) std::fprintf(stderr, "protond: timing %s:%s\n", call_, parts_.c_str());
  }
  // The time since the last lap (or the start), as `part`.
  void Lap(const char* part) {
    if (!Enabled()) return;
    const auto now = std::chrono::steady_clock::now();
    absl::StrAppend(&parts_, " ", part, " ",
                    std::chrono::duration<double, std::milli>(now - last_).count(), " ms");
    last_ = now;
  }

 private:
  static bool Enabled() {
    static const bool enabled = [] {
      const char* text = std::getenv("PROTOND_CONTROL_TIMING");
      return text != nullptr && std::string_view(text) == "1";
    }();
    return enabled;
  }
  const char* call_;
  std::string parts_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

const absl::Status& StatusOf(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& result) {
  return result.status();
}

// Runs `call` (returning an absl::Status or StatusOr) with a client of the registered daemon and
// the call's timing, named `name`.
template <typename Call>
int WithClient(ProtondControl* control, const char* name, char* error, size_t error_bytes,
               Call call, bool may_start_daemon = false) {
  CallTiming timing(name);
  absl::StatusOr<std::shared_ptr<client::Client>> client =
      RegisteredClient(control, may_start_daemon);
  timing.Lap("client");
  if (!client.ok()) return Unavailable(std::string(client.status().message()), error, error_bytes);
  const auto result = call(**client, timing);
  if (const absl::StatusCode code = StatusOf(result).code();
      code == absl::StatusCode::kUnavailable || code == absl::StatusCode::kDeadlineExceeded) {
    control->client.Forget(*client);  // the next call connects afresh
  }
  if (!StatusOf(result).ok()) {
    return Unavailable(std::string(StatusOf(result).message()), error, error_bytes);
  }
  return PROTOND_OK;
}

ProtondControl* Start(const char* socket_path, int region_fd, uint64_t region_bytes,
                      uint64_t session_id, const ProtondControlCommands* commands) {
  auto* control = new ProtondControl{
      Registration(
          socket_path, MakeRegisterRequest(region_fd, region_bytes, session_id),
          [commands](const v1::ControlCommand& command) { return RunCommand(*commands, command); }),
      SharedClient(socket_path, std::chrono::seconds(30))};
  control->registration.Start();
  return control;
}

bool WaitRegistered(ProtondControl* control, uint32_t timeout_ms) {
  return control->registration.WaitRegistered(std::chrono::milliseconds(timeout_ms));
}

// The control object is not freed: threads of the process may still be exiting around it.
void Stop(ProtondControl* control, uint32_t timeout_ms) {
  control->registration.Stop(std::chrono::milliseconds(timeout_ms));
  control->client.Close();
}

int StartSession(ProtondControl* control, const char* name, bool trace, const char* mode,
                 uint64_t* session_id, char* error, size_t error_bytes) {
  return WithClient(
      control, "start_session", error, error_bytes,
      [&](client::Client& client, CallTiming&) {
        absl::StatusOr<v1::Session> session =
            client.StartSession(name, trace ? v1::Session::TRACE : v1::Session::TREE, mode);
        if (session.ok()) *session_id = session->id();
        return session;
      },
      /*may_start_daemon=*/true);
}

int StopSession(ProtondControl* control, uint64_t session_id, char* error, size_t error_bytes) {
  return WithClient(control, "stop_session", error, error_bytes,
                    [&](client::Client& client, CallTiming& timing) {
                      absl::StatusOr<v1::Session> stopped = client.StopSession(session_id);
                      timing.Lap("rpc");
                      return stopped;
                    });
}

int FlushSession(ProtondControl* control, uint64_t session_id, char* error, size_t error_bytes) {
  return WithClient(control, "flush_session", error, error_bytes,
                    [&](client::Client& client, CallTiming& timing) {
                      absl::StatusOr<v1::Session> flushed = client.FlushSession(session_id);
                      timing.Lap("rpc");
                      return flushed;
                    });
}

// Python's finalize() replaces an earlier profile of the same name, as Proton's does; a device
// or FIFO is written into, a directory refused (common/files/output_file.h).
absl::Status WriteProfile(const std::string& path, const std::string& text) {
  return files::WriteOutputFile(path, text, files::ExistingFile::kReplace);
}

// The session's profile in `format`: a Chrome trace, Hatchet JSON, or Hatchet in MessagePack
// (bytes, not text).
absl::StatusOr<std::string> RenderProfile(client::Client& client, uint64_t session_id,
                                          std::string_view format, CallTiming& timing) {
  if (format == "chrome_trace") {
    absl::StatusOr<v1::Trace> trace = client.GetTrace(session_id);
    timing.Lap("rpc");
    if (!trace.ok()) return trace.status();
    return view::RenderChromeTrace(*trace);
  }
  absl::StatusOr<v1::Tree> tree = client.GetTree(session_id);
  timing.Lap("rpc");
  if (!tree.ok()) return tree.status();
  return format == "hatchet_msgpack" ? view::RenderHatchetMsgPack(*tree)
                                     : view::RenderHatchet(*tree);
}

// The shim checked that `format` is one of the three.
int ExportSession(ProtondControl* control, uint64_t session_id, const char* format,
                  const char* path, char* error, size_t error_bytes) {
  return WithClient(control, "export_session", error, error_bytes,
                    [&](client::Client& client, CallTiming& timing) -> absl::Status {
                      ASSIGN_OR_RETURN(const std::string contents,
                                       RenderProfile(client, session_id, format, timing));
                      timing.Lap("render");
                      absl::Status written = WriteProfile(path, contents);
                      timing.Lap("write");
                      return written;
                    });
}

constexpr ProtondControlApi kApi = {kControlApiVersion, Start,       WaitRegistered, Stop,
                                    StartSession,       StopSession, FlushSession,   ExportSession};

}  // namespace
}  // namespace protond::client

extern "C" __attribute__((visibility("default"))) const ProtondControlApi*
protond_control_api_v5() {
  return &protond::client::kApi;
}
