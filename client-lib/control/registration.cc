#include "client-lib/control/registration.h"

#include <sys/socket.h>
#include <unistd.h>

#include "common/control/control_channel.h"

namespace protond::client {
namespace {

constexpr auto kFirstBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::milliseconds(2000);

}  // namespace

Registration::Registration(std::string socket_path, v1::RegisterRequest request,
                           CommandHandler handler)
    : socket_path_(std::move(socket_path)),
      request_(std::move(request)),
      handler_(std::move(handler)) {}

Registration::~Registration() { Stop(std::chrono::milliseconds(200)); }

void Registration::Start() {
  thread_ = std::thread([this] { Run(); });
}

void Registration::Stop(std::chrono::milliseconds timeout) {
  if (!thread_.joinable()) return;
  std::unique_lock<std::mutex> lock(mutex_);
  stopping_ = true;
  if (active_fd_ >= 0) shutdown(active_fd_, SHUT_RDWR);
  changed_.notify_all();
  const bool finished = changed_.wait_for(lock, timeout, [this] { return finished_; });
  lock.unlock();
  if (finished) {
    thread_.join();
  } else {
    thread_.detach();
  }
}

bool Registration::WaitRegistered(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [this] {
    return registered_ || !refusal_.empty() || finished_;
  }) && registered_;
}

bool Registration::registered() {
  std::lock_guard<std::mutex> lock(mutex_);
  return registered_;
}

uint64_t Registration::registrations() {
  std::lock_guard<std::mutex> lock(mutex_);
  return registrations_;
}

void Registration::RetryNow() {
  std::lock_guard<std::mutex> lock(mutex_);
  retry_now_ = true;
  changed_.notify_all();
}

std::string Registration::refusal() {
  std::lock_guard<std::mutex> lock(mutex_);
  return refusal_;
}

void Registration::Run() {
  auto backoff = kFirstBackoff;
  while (RegisterOnce()) {
    SleepBackoff(backoff);
    backoff = std::min(backoff * 2, kMaxBackoff);
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) break;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  finished_ = true;
  changed_.notify_all();
}

bool Registration::RegisterOnce() {
  absl::StatusOr<int> fd = control::ConnectControl(socket_path_);
  if (!fd.ok()) return true;  // no daemon (yet): try again after a while
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      close(*fd);
      return false;
    }
    active_fd_ = *fd;
  }
  const bool retry = !control::WriteFrame(*fd, request_).ok() || Serve(*fd);
  std::lock_guard<std::mutex> lock(mutex_);
  close(active_fd_);
  active_fd_ = -1;
  registered_ = false;
  changed_.notify_all();
  return retry && !stopping_;
}

bool Registration::Serve(int fd) {
  v1::ControlCommand command;
  uint64_t process_id = 0;
  for (absl::StatusOr<bool> read = control::ReadFrame(fd, &command); read.ok() && *read;
       read = control::ReadFrame(fd, &command)) {
    if (command.has_refused()) {
      const auto code = static_cast<absl::StatusCode>(command.refused().code());
      std::lock_guard<std::mutex> lock(mutex_);
      refusal_ = command.refused().message();
      // A refusal that another attempt cannot change ends the registration for good.
      return code != absl::StatusCode::kPermissionDenied &&
             code != absl::StatusCode::kInvalidArgument &&
             code != absl::StatusCode::kFailedPrecondition;
    }
    if (command.has_registered()) {
      process_id = command.registered().process_id();
      std::lock_guard<std::mutex> lock(mutex_);
      registered_ = true;
      ++registrations_;
      changed_.notify_all();
      continue;
    }
    v1::CommandResult result = handler_(command);
    result.set_process_id(process_id);
    result.set_command_id(command.command_id());
    // A lost answer is not retried: the daemon gives up waiting and says so.
    if (!control::WriteFrame(fd, result).ok()) break;
  }
  return true;
}

void Registration::SleepBackoff(std::chrono::milliseconds delay) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, delay, [this] { return stopping_ || retry_now_; });
  retry_now_ = false;
}

}  // namespace protond::client
