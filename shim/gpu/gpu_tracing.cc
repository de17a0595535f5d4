#include "shim/gpu/gpu_tracing.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/paths/own_path.h"
#include "shim/loading/sibling_library.h"

namespace protond::shim {
namespace {

// The host table's functions take no user data: they reach the one recorder through this.
std::atomic<Recorder*> g_host_recorder{nullptr};

Recorder& HostRecorder() { return *g_host_recorder.load(std::memory_order_acquire); }

uint32_t HostCurrentContext() { return HostRecorder().CurrentContext(); }

uint32_t HostRecordingSet() { return HostRecorder().RecordingSet(); }

uint32_t HostInternContext(uint32_t parent, const char* name) {
  return HostRecorder().names().InternContext(parent, name);
}

const char* HostContextName(uint32_t context, uint32_t* parent) {
  const ContextEntry* entry = HostRecorder().names().Context(context);
  *parent = entry->parent_id;
  return entry->name.c_str();
}

uint32_t HostInternKernelName(const char* name) {
  record::NameClass first_class;
  return HostRecorder().names().InternName(name, record::NameClass::kKernel, &first_class);
}

uint32_t HostInternName(const char* name, uint8_t name_class) {
  record::NameClass first_class;
  return HostRecorder().names().InternName(name, static_cast<record::NameClass>(name_class),
                                           &first_class);
}

uint32_t HostLaunchTarget(uint32_t context, uint32_t* kernel_name_id) {
  const ContextEntry* entry = HostRecorder().names().Context(context);
  if (!entry->launch_frame) {
    *kernel_name_id = 0;
    return context;
  }
  *kernel_name_id = HostInternKernelName(entry->name.c_str());
  return entry->parent_id;
}

void HostApiReturned(int kernel_launch) { HostRecorder().ApiCallReturned(kernel_launch != 0); }

static_assert(kLaunchNotSeen == Recorder::kUnknownRecordingSet);
void HostWriteActivity(const record::GpuActivityRecord* activity, uint32_t recording_set) {
  HostRecorder().WriteGpuActivity(*activity, recording_set);
}

void HostWritePcSample(const record::PcSampleRecord* sample) {
  HostRecorder().WritePcSample(*sample);
}

void HostWriteNotice(const char* text) { HostRecorder().WriteNotice(text); }

void HostCountDropped(uint64_t count) { HostRecorder().CountDropped(count); }

void HostWriteDeviceInfo(uint32_t device_id, const record::DeviceInfoRecord* device,
                         const char* name) {
  HostRecorder().WriteDeviceInfo(device_id, *device, name);
}

void HostWriteCubin(uint64_t crc, const void* cubin, size_t bytes) {
  HostRecorder().WriteCubin(crc, {static_cast<const uint8_t*>(cubin), bytes});
}

// CUDA tears down at exit, with CUPTI's undelivered buffers: deliver them first. Registered at
// the first start, which is at or after cuInit; the sample's exact counts with no explicit stop
// (tests/gpu) show that it runs while CUDA is still up.
GpuTracing* g_exit_tracing = nullptr;
void StopAtExit() { g_exit_tracing->StopTracing(); }

constexpr ProtondGpuHost kHost = {HostCurrentContext,   HostRecordingSet,  HostApiReturned,
                                  HostLaunchTarget,     HostInternContext, HostContextName,
                                  HostInternKernelName, HostInternName,    HostWriteActivity,
                                  HostWritePcSample,    HostWriteNotice,   HostCountDropped,
                                  HostWriteDeviceInfo,  HostWriteCubin};

}  // namespace

GpuTracing::GpuTracing(Recorder* recorder) : recorder_(recorder) {
  g_host_recorder.store(recorder, std::memory_order_release);
}

void GpuTracing::CudaInitialized() {
  mode::SessionMode wanted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cuda_initialized_ = true;
    wanted = wanted_;
  }
  if (recorder_->recording()) SessionStarted(wanted);
}

bool GpuTracing::CudaInUse() {
  if (cuda_initialized_) return true;
  // Injection may belong to another tool; then a loaded driver is the sign.
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (driver != nullptr) dlclose(driver);
  return driver != nullptr;
}

void GpuTracing::SessionStarted(const mode::SessionMode& mode) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool sampling_asked = mode.pc_sampling && !wanted_.pc_sampling;
  if (sampling_asked) wanted_ = mode;
  if (tracing() && !sampling_asked) return;
  if (load_failed_) return;
  if (!CudaInUse()) return WarnIfInjectionIsElsewhere();
  if (api_ == nullptr) {
    std::string error;
    api_ =
        static_cast<const ProtondGpuApi*>(LoadSiblingApi(kGpuLibraryName, kGpuApiSymbol, &error));
    if (api_ == nullptr || api_->version != kGpuApiVersion) {
      load_failed_ = true;
      api_ = nullptr;
      return Fail(error.empty() ? std::string(kGpuLibraryName) + " is from another build" : error);
    }
  }
  char error[512] = {};
  const ProtondGpuOptions options = {wanted_.pc_sampling, wanted_.pc_sampling_period_log2};
  tracing_.store(api_->start(&kHost, &options, error, sizeof(error)), std::memory_order_release);
  if (!tracing()) return Fail(error);
  failure_.clear();
  if (g_exit_tracing == nullptr) {
    g_exit_tracing = this;
    std::atexit(StopAtExit);
  }
}

void GpuTracing::SessionStopped() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!tracing()) return;
  // Read under mutex_: a session that starts records first (Recorder::StartRecording) and then
  // calls SessionStarted, which waits for mutex_, so either tracing goes on for it here or it
  // turns tracing on again after.
  if (recorder_->recording()) return api_->flush();
  StopTracingLocked();
}

void GpuTracing::StopTracing() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tracing()) StopTracingLocked();
}

void GpuTracing::StopTracingLocked() {
  api_->stop();
  tracing_.store(false, std::memory_order_release);
  wanted_ = {};
}

void GpuTracing::Flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tracing()) api_->flush();
}

// No lock: NCCL's plugin asks at each collective call, which must not wait for a flush. api_ is
// set before tracing_ turns true (release; tracing() acquires) and never changes after that, and
// last_launch only reads a thread-local of the loaded library, which stays loaded.
std::optional<uint32_t> GpuTracing::LastLaunch() const {
  uint32_t correlation_id = 0;
  if (!tracing() || !api_->last_launch(&correlation_id)) return std::nullopt;
  return correlation_id;
}

void GpuTracing::WarnIfInjectionIsElsewhere() {
  const char* injection = std::getenv("CUDA_INJECTION64_PATH");
  if (warned_injection_ || injection == nullptr || *injection == '\0') return;
  char* injected = realpath(injection, nullptr);
  // The front (libprotond_shim.so) is what CUDA must load; it loaded this core from beside it.
  char* self = realpath(paths::SiblingLibraryPath("libprotond_shim.so").c_str(), nullptr);
  const bool elsewhere = injected == nullptr || self == nullptr || std::strcmp(injected, self) != 0;
  std::free(injected);
  std::free(self);
  if (!elsewhere) return;
  warned_injection_ = true;
  Fail(std::string("CUDA_INJECTION64_PATH names ") + injection +
       ", not the protond shim: GPU work of this process is recorded only in sessions started "
       "after it initialized CUDA");
}

std::string GpuTracing::MissingReason() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tracing()) return "";
  if (!failure_.empty()) return "no GPU activity is recorded: " + failure_;
  if (!CudaInUse()) {
    return "no GPU work yet: the process has not used CUDA; its kernels are recorded from its "
           "first CUDA call";
  }
  return "";
}

void GpuTracing::Fail(const std::string& reason) {
  failure_ = reason;
  std::fprintf(stderr, "protond: no GPU activity is recorded: %s\n", reason.c_str());
  recorder_->WriteNotice("no GPU activity is recorded: " + reason);
}

}  // namespace protond::shim
