// Loads libprotond_control.so (control_api.h) into the process when it is needed: after the
// process has lived for a moment (so that short-lived processes never pay for gRPC), at once when
// the process starts a session itself, or at exit when it recorded something that the daemon must
// still map. Loading happens on a background thread, except in those last two cases. protond's
// attach (protond_shim_attach) has the background thread load it at once, for another socket.
#ifndef PROTOND_SHIM_CONTROL_CONTROL_LOADER_H_
#define PROTOND_SHIM_CONTROL_CONTROL_LOADER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "protond/control_api.h"

namespace protond::shim {

struct ControlTarget {
  std::string socket_path;
  int region_fd = -1;
  uint64_t region_bytes = 0;
  uint64_t session_id = 0;  // the session the process records into from the start
  const ProtondControlCommands* commands = nullptr;  // what pushed commands call
};

class ControlLoader {
 public:
  explicit ControlLoader(ControlTarget target) : target_(std::move(target)) {}

  // Starts the background thread, which loads the control library after `delay`.
  void StartAfter(std::chrono::milliseconds delay);

  // protond's attach: the background thread loads the library now, connecting to `socket_path`.
  // False (and why in `error`) when the library is already loaded for another socket, or failed
  // to load.
  bool ConnectNow(const std::string& socket_path, std::string* error);

  // Loads now if needed. Returns the started control, or nullptr (and the reason in `error`).
  ProtondControl* Load(std::string* error);
  // The API of the loaded library; only valid after Load returned non-null.
  const ProtondControlApi* api() const { return api_; }
  // The control if it was loaded, without loading it.
  ProtondControl* loaded();

  // Ends the registration if there is one and stops the background thread, waiting at most
  // `timeout` (a thread still loading the library is left to finish on its own).
  void Stop(std::chrono::milliseconds timeout);

  std::string socket_path();

 private:
  ProtondControl* LoadLocked(std::string* error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  std::mutex mutex_;  // held while loading: a second caller waits for the first
  ControlTarget target_ ABSL_GUARDED_BY(mutex_);  // its socket changes with ConnectNow only
  std::condition_variable wake_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  bool connect_now_ ABSL_GUARDED_BY(mutex_) = false;
  bool load_failed_ ABSL_GUARDED_BY(mutex_) = false;
  std::string load_error_ ABSL_GUARDED_BY(mutex_);
  const ProtondControlApi* api_ = nullptr;  // set once, under mutex_, before control_
  ProtondControl* control_ ABSL_GUARDED_BY(mutex_) = nullptr;
  std::thread thread_;
};

}  // namespace protond::shim

#endif  // PROTOND_SHIM_CONTROL_CONTROL_LOADER_H_
