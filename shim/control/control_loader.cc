#include "shim/control/control_loader.h"

#include <string>

#include "shim/loading/sibling_library.h"

namespace protond::shim {

void ControlLoader::StartAfter(std::chrono::milliseconds delay) {
  thread_ = std::thread([this, delay] {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait_for(lock, delay, [this] { return stopping_ || connect_now_; });
    if (stopping_) return;
    std::string error;
    LoadLocked(&error);
  });
}

bool ControlLoader::ConnectNow(const std::string& socket_path, std::string* error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (load_failed_) {
      *error = load_error_;
      return false;
    }
    if (control_ != nullptr && target_.socket_path != socket_path) {
      *error = "the shim already talks to protond at " + target_.socket_path;
      return false;
    }
    target_.socket_path = socket_path;
    connect_now_ = true;
  }
  wake_.notify_all();
  return true;
}

std::string ControlLoader::socket_path() {
  std::lock_guard<std::mutex> lock(mutex_);
  return target_.socket_path;
}

ProtondControl* ControlLoader::Load(std::string* error) {
  std::lock_guard<std::mutex> lock(mutex_);
  return LoadLocked(error);
}

ProtondControl* ControlLoader::loaded() {
  std::lock_guard<std::mutex> lock(mutex_);
  return control_;
}

ProtondControl* ControlLoader::LoadLocked(std::string* error) {
  if (control_ != nullptr || load_failed_ || stopping_) {
    *error = load_failed_ ? load_error_ : "the protond control channel is stopped";
    return control_;
  }
  const auto* api = static_cast<const ProtondControlApi*>(
      LoadSiblingApi(kControlLibraryName, kControlApiSymbol, &load_error_));
  if (api == nullptr || api->version != kControlApiVersion) {
    load_failed_ = true;
    if (api != nullptr) {
      load_error_ = std::string("cannot use ") + kControlLibraryName + ": it is from another build";
    }
    *error = load_error_;
    return nullptr;
  }
  api_ = api;
  control_ = api->start(target_.socket_path.c_str(), target_.region_fd, target_.region_bytes,
                        target_.session_id, target_.commands);
  return control_;
}

void ControlLoader::Stop(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  // A thread in the middle of dlopen holds the mutex: do not wait for it.
  if (!lock.try_lock()) {
    if (thread_.joinable()) thread_.detach();
    return;
  }
  stopping_ = true;
  ProtondControl* control = control_;
  lock.unlock();
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (control != nullptr) api_->stop(control, static_cast<uint32_t>(timeout.count()));
}

}  // namespace protond::shim
