// The shim's recording half: per-thread scope stacks and states, encoded as records into the
// calling thread's lane of the shared-memory region. Everything here runs on application threads:
// no lock after a thread's first use of a name, no allocation after warm-up, no system call
// except the vDSO clock. Activation (which session is recorded) is one atomic the control thread
// flips.
#ifndef PROTOND_SHIM_SCOPES_RECORDER_H_
#define PROTOND_SHIM_SCOPES_RECORDER_H_

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "protond/shim.h"
#include "shim/ring/ring_writer.h"
#include "shim/scopes/name_table.h"

namespace protond::shim {

struct ThreadRecorder;

// GPU work launched on a thread with no open scope of its own lands in the main thread's
// innermost scope: the kernels of PyTorch's autograd threads, say, under the scope around
// loss.backward() (Proton does the same: its new threads start from the main thread's stack).
// A thread's own scopes still nest from ROOT, so that threads working side by side with the main
// thread (data loaders, the sample's workers) give the same tree in every run. The view is live:
// it follows the main thread's scopes as they change.
class Recorder {
 public:
  // `region` must outlive the recorder. `main_tid` is the thread whose scopes other threads
  // inherit (the process's initial thread).
  explicit Recorder(ring::WritableRegion* region, uint32_t main_tid = getpid())
      : region_(region), main_tid_(main_tid) {}

  // Records go to `session_id` from now on (0 stops recording). Any thread.
  void Activate(uint64_t session_id) { session_id_.store(session_id, std::memory_order_release); }
  uint64_t session_id() const { return session_id_.load(std::memory_order_acquire); }
  // In a forked child the region is shared with the parent: never write again.
  void DisableForever() {
    disabled_.store(true, std::memory_order_release);
    session_id_.store(0, std::memory_order_release);
  }
  bool disabled() const { return disabled_.load(std::memory_order_acquire); }

  protond_result EnterScope(const char* name);
  protond_result ExitScope(const char* name);
  protond_result AddInt64Metric(const char* name, int64_t value);
  protond_result AddDoubleMetric(const char* name, double value);
  protond_result EnterState(const char* name);
  protond_result ExitState();
  // Proton's launch hook: until ExitLaunch, GPU work launched on this thread and metrics given on
  // it belong to the kernel node `name` under the innermost scope (see protond_launch_enter).
  protond_result EnterLaunch(const char* name);
  protond_result ExitLaunch();
  // Closes the thread's launch frame if one is open, quietly: the GPU tracer calls it when a
  // kernel launch returns.
  void EndLaunch();

  // Proton's context="python" (see protond_set_context_provider): while set, GPU work goes to
  // the context `provider` returns instead of the scope stack. nullptr turns it off. Any thread.
  void SetContextProvider(protond_context_provider provider);

  // For the GPU tracer (shim/gpu/gpu_api.h): where the calling thread's GPU work goes (its open
  // launch frame, else the context provider's answer, else its innermost scope), and writing
  // into the calling thread's lane for the running session (nothing happens when none runs).
  uint32_t CurrentContext();
  protond_result WriteGpuActivity(const record::GpuActivityRecord& activity);
  protond_result WriteNotice(std::string_view text);
  protond_result WriteDeviceInfo(uint32_t device_id, const record::DeviceInfoRecord& device,
                                 std::string_view name);
  void CountDropped(uint64_t count);

  NameTable& names() { return names_; }
  ring::WritableRegion* region() { return region_; }

 private:
  ring::WritableRegion* region_;
  const uint32_t main_tid_;
  std::atomic<uint32_t> main_context_{0};  // the main thread's innermost scope
  std::atomic<protond_context_provider> provider_{nullptr};

  // Where GPU work launched by the thread goes when no launch frame is open.
  uint32_t LaunchParent(const ThreadRecorder& t);

  uint32_t InnermostScope(const ThreadRecorder& t) const;
  // Where GPU work of the thread goes when no launch frame or context provider says otherwise.
  uint32_t GpuWorkScope(const ThreadRecorder& t) const;
  // Where metrics and GPU work of the thread go: the open launch frame, else the innermost scope.
  uint32_t CurrentContextOf(const ThreadRecorder& t) const;
  void PublishIfMain(const ThreadRecorder& t);
  protond_result AddMetric(const char* name, record::NameClass type, uint64_t value_bits);

  NameTable names_;
  std::atomic<uint64_t> session_id_{0};
  std::atomic<bool> disabled_{false};
};

// The calling thread's last error message ("" if none), and setting it.
const char* LastError();
void SetLastError(std::string message);

}  // namespace protond::shim

#endif  // PROTOND_SHIM_SCOPES_RECORDER_H_
