// The gRPC client of protond that the control library's session calls share: one channel for the
// process, made at the first call and kept, so that a call (a stop, then the export that waits for
// it) does not pay for a new channel and its connection each time. It is replaced after the
// process registers again (a daemon restarted at the socket: its first call need not wait out
// the old channel's reconnect backoff), and after a call that did not reach the daemon.
// Thread-safe: the program's threads and the shim's stop thread call at once; a client handed
// out stays valid while its caller holds it, even if it is replaced meanwhile.
#ifndef PROTOND_CLIENT_LIB_CONTROL_SHARED_CLIENT_H_
#define PROTOND_CLIENT_LIB_CONTROL_SHARED_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "client-lib/cpp/client.h"

namespace protond::client {

class SharedClient {
 public:
  SharedClient(std::string socket_path, std::chrono::milliseconds deadline)
      : socket_path_(std::move(socket_path)), deadline_(deadline) {}

  // The client to use while the process's registration count is `registrations`
  // (Registration::registrations()): the kept one, or a new one when it was made before a later
  // registration or forgotten.
  std::shared_ptr<Client> Get(uint64_t registrations);
  // `client` did not reach the daemon: unless it was replaced already, the next Get makes a new
  // one.
  void Forget(const std::shared_ptr<Client>& client);
  // The process is exiting (the control connection stops): the kept client is let go now, so
  // that no gRPC channel, and none of gRPC's threads, outlives the program's atexit handlers
  // (LeakSanitizer's scan at exit crashed on them). A call after this gets a client of its own.
  void Close();

 private:
  const std::string socket_path_;
  const std::chrono::milliseconds deadline_;
  absl::Mutex mutex_;
  std::shared_ptr<Client> client_ ABSL_GUARDED_BY(mutex_);
  uint64_t made_at_registrations_ ABSL_GUARDED_BY(mutex_) = 0;
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace protond::client

#endif  // PROTOND_CLIENT_LIB_CONTROL_SHARED_CLIENT_H_
