#include "shim/control/control_loader.h"

#include <dlfcn.h>

#include <string>

namespace protond::shim {
namespace {

// libprotond_control.so sits next to the library this code is in.
std::string ControlLibraryPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&ControlLibraryPath), &info) == 0 ||
      info.dli_fname == nullptr) {
    return kControlLibraryName;
  }
  const std::string self = info.dli_fname;
  const size_t slash = self.rfind('/');
  return slash == std::string::npos ? kControlLibraryName
                                    : self.substr(0, slash + 1) + kControlLibraryName;
}

}  // namespace

void ControlLoader::StartAfter(std::chrono::milliseconds delay) {
  thread_ = std::thread([this, delay] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (wake_.wait_for(lock, delay, [this] { return stopping_; })) return;
    std::string error;
    LoadLocked(&error);
  });
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
  const std::string path = ControlLibraryPath();
  // RTLD_LOCAL: gRPC and protobuf stay private to the control library.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto get_api =
      library != nullptr
          ? reinterpret_cast<const ProtondControlApi* (*)()>(dlsym(library, kControlApiSymbol))
          : nullptr;
  const ProtondControlApi* api = get_api != nullptr ? get_api() : nullptr;
  if (api == nullptr || api->version != kControlApiVersion) {
    load_failed_ = true;
    const char* reason = dlerror();
    load_error_ = "cannot load " + path + ": " +
                  (api != nullptr ? "it is from another build"
                   : reason       ? reason
                                  : "no API");
    *error = load_error_;
    return nullptr;
  }
  api_ = api;
  control_ = api->start(target_.socket_path.c_str(), target_.region_fd, target_.region_bytes,
                        target_.session_id);
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
