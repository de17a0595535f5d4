// A profiled process's control channel (in libprotond_control.so, which the shim loads): a
// background thread that registers the process with protond (pid, uid, the region's memfd,
// command line, job) on a control connection (common/control/control_channel.h) and keeps it
// open, blocked in one read, reconnecting with backoff when the daemon goes away. Commands the
// daemon pushes on it (start or stop recording) are carried out on that thread and answered at
// once. It uses no gRPC, so an idle process runs no gRPC thread.
// Application threads never wait on it, except at exit, for a bounded time, so that a short
// program's records reach the daemon.
#ifndef PROTOND_CLIENT_LIB_CONTROL_REGISTRATION_H_
#define PROTOND_CLIENT_LIB_CONTROL_REGISTRATION_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "protond.pb.h"

namespace protond::client {

// Carries out one pushed command; the result's ids are filled in by the caller.
using CommandHandler = std::function<v1::CommandResult(const v1::ControlCommand&)>;

class Registration {
 public:
  Registration(std::string socket_path, v1::RegisterRequest request, CommandHandler handler);
  ~Registration();  // Stop()s

  void Start();
  // Ends the connection and joins the thread, waiting at most `timeout`; the thread is left
  // detached (and harmless) if it does not finish in time.
  void Stop(std::chrono::milliseconds timeout);

  // Waits until the daemon has acknowledged the registration, at most `timeout`.
  bool WaitRegistered(std::chrono::milliseconds timeout);
  bool registered();
  // How many times a daemon has acknowledged the registration: it grows when the process
  // registers again, with a restarted daemon.
  uint64_t registrations();
  // Ends a backoff sleep between attempts at once: a daemon was just started at the socket.
  void RetryNow();
  const std::string& socket_path() const { return socket_path_; }
  // Why the daemon refused this process (empty while not refused).
  std::string refusal();

 private:
  void Run();
  // One control connection, until it ends. Returns false when retrying is pointless (refused).
  bool RegisterOnce();
  // Reads and carries out what the daemon sends until the connection ends; false if refused.
  bool Serve(int fd);
  void SleepBackoff(std::chrono::milliseconds delay);

  const std::string socket_path_;
  const v1::RegisterRequest request_;
  const CommandHandler handler_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  bool registered_ = false;
  uint64_t registrations_ = 0;
  bool finished_ = false;
  bool retry_now_ = false;
  std::string refusal_;
  int active_fd_ = -1;  // guarded by mutex_: shut down to end a blocked read
  std::thread thread_;
};

}  // namespace protond::client

#endif  // PROTOND_CLIENT_LIB_CONTROL_REGISTRATION_H_
