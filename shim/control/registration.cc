#include "shim/control/registration.h"

#include "client-lib/cpp/client.h"

namespace protond::shim {
namespace {

constexpr auto kFirstBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::milliseconds(2000);

constexpr auto kAcknowledgeDeadline = std::chrono::seconds(5);

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
  if (active_context_ != nullptr) active_context_->TryCancel();
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
  auto channel = client::ConnectUnix(socket_path_);
  auto stub = v1::Registration::NewStub(channel);
  grpc::ClientContext context;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    active_context_ = &context;
  }
  auto reader = stub->Register(&context, request_);
  v1::ControlCommand command;
  uint64_t process_id = 0;
  while (reader->Read(&command)) {
    if (command.has_registered()) {
      process_id = command.registered().process_id();
      std::lock_guard<std::mutex> lock(mutex_);
      registered_ = true;
      changed_.notify_all();
    } else {
      v1::CommandResult result = handler_(command);
      result.set_process_id(process_id);
      result.set_command_id(command.command_id());
      // A lost answer is not retried: the daemon gives up waiting and says so.
      grpc::ClientContext ack_context;
      ack_context.set_deadline(std::chrono::system_clock::now() + kAcknowledgeDeadline);
      v1::AcknowledgeResponse ignored;
      stub->Acknowledge(&ack_context, result, &ignored);
    }
  }
  const grpc::Status status = reader->Finish();
  std::lock_guard<std::mutex> lock(mutex_);
  active_context_ = nullptr;
  registered_ = false;
  changed_.notify_all();
  if (status.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
      status.error_code() == grpc::StatusCode::INVALID_ARGUMENT ||
      status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
    refusal_ = status.error_message();
    return false;
  }
  return !stopping_;
}

void Registration::SleepBackoff(std::chrono::milliseconds delay) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, delay, [this] { return stopping_ || retry_now_; });
  retry_now_ = false;
}

}  // namespace protond::shim
