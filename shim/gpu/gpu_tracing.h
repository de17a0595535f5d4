// The shim's side of GPU tracing: loads libprotond_cupti.so (gpu_api.h) the first time a session
// runs in a process that uses CUDA, and starts and stops it with the session. CUDA use is known
// from the driver calling InitializeInjection (the shim sets CUDA_INJECTION64_PATH to itself when
// it is unset) or, failing that, from libcuda being loaded when a session starts. When neither
// holds because the injection names another library, the session is told that GPU work started
// later is not recorded.
#ifndef PROTOND_SHIM_GPU_GPU_TRACING_H_
#define PROTOND_SHIM_GPU_GPU_TRACING_H_

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

#include "common/mode/session_mode.h"
#include "shim/gpu/gpu_api.h"
#include "shim/scopes/recorder.h"

namespace protond::shim {

class GpuTracing {
 public:
  // The recorder outlives this object (both live for the life of the process).
  explicit GpuTracing(Recorder* recorder);

  // Called from InitializeInjection: CUDA is being initialized in this process.
  void CudaInitialized();
  // Starts tracing if the process uses CUDA; a failure (CUPTI held by another tool, no CUPTI
  // library) is reported into the session and on stderr, and the program runs on. A session in
  // pcsampling mode also turns on PC sampling, for the rest of the tracing (the first session to
  // ask chooses the interval); a process that initializes CUDA later gets the modes asked so far.
  void SessionStarted(const mode::SessionMode& mode);
  // A session stopped recording (Recorder::StopRecording; call before FinishStopping): delivers
  // every record CUPTI holds, and, when no session records any more, releases CUPTI, so that
  // another tool may use it. Slow (CUPTI's disable and forced flush): the shim calls it on its
  // stop queue's thread, never on the program's.
  void SessionStopped();
  // Delivers every record and releases CUPTI whether or not sessions record (at exit).
  void StopTracing();
  // Delivers the records of CUPTI's completed buffers.
  void Flush();
  // CUPTI's correlation id of the calling thread's latest kernel launch, while GPU work is traced
  // and the thread has launched one; nullopt otherwise. Any thread, no lock.
  std::optional<uint32_t> LastLaunch() const;
  // Whether GPU work is being traced now (any thread, no lock).
  bool tracing() const { return tracing_.load(std::memory_order_acquire); }
  // For a session that just started: why its GPU work is not traced ("" when it is), or that
  // the process has not used CUDA yet.
  std::string MissingReason();

 private:
  bool CudaInUse();
  void WarnIfInjectionIsElsewhere();
  void Fail(const std::string& reason);
  void StopTracingLocked();

  Recorder* const recorder_;
  std::mutex mutex_;
  bool cuda_initialized_ = false;
  std::atomic<bool> tracing_{false};  // written under mutex_
  bool load_failed_ = false;
  bool warned_injection_ = false;
  std::string failure_;  // why the last start failed, until one succeeds
  const ProtondGpuApi* api_ = nullptr;
  mode::SessionMode wanted_;  // what the sessions started so far asked for
};

}  // namespace protond::shim

#endif  // PROTOND_SHIM_GPU_GPU_TRACING_H_
