// The shim's recording half: per-thread scope stacks and states, encoded as records into the
// calling thread's lanes of the shared-memory region, one lane per recording session. Everything
// here runs on application threads: no lock after a thread's first use of a name, no allocation
// after warm-up, no system call (timestamps come from the TSC, or the vDSO clock where the TSC
// cannot stand for CLOCK_MONOTONIC). Which sessions record is a few atomics (session slots) the
// control thread sets.
#ifndef PROTOND_SHIM_SCOPES_RECORDER_H_
#define PROTOND_SHIM_SCOPES_RECORDER_H_

#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock/tsc_clock.h"
#include "protond/shim.h"
#include "shim/ring/ring_writer.h"
#include "shim/scopes/name_table.h"
#include "shim/scopes/thread_recorder.h"

namespace protond::shim {

// What stamps scope and state records: the TSC where it is invariant and the kernel keeps time
// with it (x86-64; the daemon converts with the clock pairs written beside), else CLOCK_MONOTONIC.
enum class ScopeClock : uint8_t { kMonotonic, kTsc };
// Decided once per process, at the first call (the shim's load): PROTOND_SCOPE_CLOCK=monotonic
// forces CLOCK_MONOTONIC.
ScopeClock DetectScopeClock();

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
  explicit Recorder(ring::WritableRegion* region, uint32_t main_tid = getpid(),
                    ScopeClock clock = DetectScopeClock())
      : region_(region), main_tid_(main_tid), tsc_(clock == ScopeClock::kTsc) {}

  // Records go to `session_id` too from now on, in lanes of its own (one session slot); false
  // when kMaxSessions sessions record already. Starts and stops come from one thread at a time
  // (the caller serializes them); recording threads see them at their next record.
  bool StartRecording(uint64_t session_id);
  // The program's records (scopes, states, metrics, launches, instrumentation buffers) stop going
  // to `session_id`; false if it was not recording. What the GPU tracer delivers later of work
  // launched while it recorded still goes to it, until FinishStopping: the session keeps its slot
  // until then.
  bool StopRecording(uint64_t session_id);
  // After StopRecording, once the GPU tracer has delivered what the session is owed: frees its
  // slot. False if `session_id` is not stopping.
  bool FinishStopping(uint64_t session_id);
  bool IsRecording(uint64_t session_id) const;
  bool recording() const;  // into any session
  // The sessions recording now, in slot order (the longest-running free slot first).
  std::vector<uint64_t> RecordingSessions() const;
  // In a forked child the region is shared with the parent: never write again.
  void DisableForever();
  bool disabled() const { return disabled_.load(std::memory_order_acquire); }

  protond_result EnterScope(const char* name);
  protond_result ExitScope(const char* name);
  protond_result AddInt64Metric(const char* name, int64_t value);
  protond_result AddDoubleMetric(const char* name, double value);
  // A vector metric: `count` (1 to record::kMaxVectorMetricElements) values at `values`, int64 or
  // double as `type` (kInt64VectorMetric or kDoubleVectorMetric) says, summed element-wise. A
  // name keeps its type and its count; another is PROTOND_ERR_METRIC_TYPE.
  protond_result AddVectorMetric(const char* name, record::NameClass type, const void* values,
                                 size_t count);
  protond_result EnterState(const char* name);
  protond_result ExitState();
  // Proton's launch hook: until ExitLaunch, GPU work launched on this thread and metrics given on
  // it belong to the kernel node `name` under the innermost scope (see protond_launch_enter).
  protond_result EnterLaunch(const char* name);
  protond_result ExitLaunch();
  // The GPU tracer: a CUDA call that CurrentContext() was asked about has returned on the calling
  // thread. After a kernel launch, the thread's launch frame (if open) closes, quietly.
  void ApiCallReturned(bool kernel_launch);

  // Proton's context="python" (see protond_set_context_provider): while set, GPU work goes to
  // the context `provider` returns instead of the scope stack. nullptr turns it off. Any thread.
  void SetContextProvider(protond_context_provider provider);

  // NCCL's profiler plugin (shim/nccl): a collective call begins on the calling thread. Returns
  // its record with the context that GPU work launched now would go to, the clock's flags and
  // the start time; the plugin fills in the call's fields.
  record::CollectiveRecord BeginCollective();
  // The call ended (on any thread): stamps the end and writes the record into every session
  // recording now.
  protond_result EndCollective(record::CollectiveRecord& collective);

  // For the GPU tracer (shim/gpu/gpu_api.h), inside a CUDA call: where the calling thread's GPU
  // work goes (its open launch frame, else the context provider's answer, asked once per call
  // until ApiCallReturned, else its innermost scope), and writing
  // into the calling thread's lanes of the recording sessions (nothing happens when none runs).
  uint32_t CurrentContext();
  // The number of the current recording set (which sessions record), taken at a launch; it
  // changes with every start and stop.
  uint32_t RecordingSet() const { return recording_set_.load(std::memory_order_acquire); }
  // What the GPU tracer delivers goes to the sessions that take deliveries: those recording, and
  // those stopping (StopRecording .. FinishStopping).
  //
  // Writes `activity` for those of them that recorded in `recording_set` (its low 16 bits, as the
  // correlation map keeps it); for all of them when the set is not known (kUnknownRecordingSet,
  // or so old that its entry was reused). CUPTI hands GPU work over a whole activity buffer at a
  // time (tens of thousands of records), on a thread of its own or of a flush: rather than drop
  // what does not fit, this waits for the daemon to drain the lane, up to kGpuRoomWait at a time,
  // and not again on a lane the daemon left full.
  static constexpr uint32_t kUnknownRecordingSet = UINT32_MAX;
  static constexpr std::chrono::milliseconds kGpuRoomWait{500};
  protond_result WriteGpuActivity(const record::GpuActivityRecord& activity,
                                  uint32_t recording_set);
  // Writes PC samples for every session that takes deliveries (PC sampling does not tell launches
  // apart), waiting for room as WriteGpuActivity does.
  protond_result WritePcSample(const record::PcSampleRecord& sample);
  // An intra-kernel profile buffer of a launch of `kernel_name` that the program copied out of
  // the GPU (protond_instrumentation_buffer), as a blob under the calling thread's innermost scope
  // or launch frame, in chunks: each waits for room as WriteGpuActivity does. `header` gives the
  // layout; its context and name ids are filled in here. `profiled_warps` empty: every warp.
  protond_result WriteInstrumentationBuffer(const char* kernel_name,
                                            record::InstrumentationBufferHeader header,
                                            std::span<const uint32_t> profiled_warps,
                                            std::span<const std::string_view> scope_names,
                                            std::span<const uint8_t> buffer);
  // The cubin of a PC-sampled module (record::BlobClass::kCubin), for every session that takes
  // deliveries, in chunks that wait for room as WriteGpuActivity does. Notices, device
  // information and drop counts go to those sessions too.
  protond_result WriteCubin(uint64_t crc, std::span<const uint8_t> cubin);
  protond_result WriteNotice(std::string_view text);
  protond_result WriteDeviceInfo(uint32_t device_id, const record::DeviceInfoRecord& device,
                                 std::string_view name);
  void CountDropped(uint64_t count);

  NameTable& names() { return names_; }
  ring::WritableRegion* region() { return region_; }
  ScopeClock clock() const { return tsc_ ? ScopeClock::kTsc : ScopeClock::kMonotonic; }

 private:
  // A timestamp for a scope or state record, and the flags saying which clock it is from.
  uint64_t Now() const { return tsc_ ? clock::ReadTsc() : clock::MonotonicNs(); }
  uint8_t TimestampFlags() const { return tsc_ ? record::kTimestampTsc : 0; }

  ring::WritableRegion* region_;
  const uint32_t main_tid_;
  const bool tsc_;
  std::atomic<uint32_t> main_context_{0};  // the main thread's innermost scope
  std::atomic<protond_context_provider> provider_{nullptr};

  // Where GPU work launched by the thread goes when no launch frame is open.
  uint32_t LaunchParent(ThreadRecorder& t, bool in_api_call);
  // The context provider's answer (PROTOND_NO_CONTEXT without one), remembered for the rest of
  // the CUDA call when asked from inside one.
  uint32_t ProvidedContext(ThreadRecorder& t, bool in_api_call);

  // The slot that holds `session_id`, recording or stopping; kMaxSessions when none does.
  uint32_t SlotOf(uint64_t session_id) const;
  uint32_t InnermostScope(const ThreadRecorder& t) const {
    return t.stack.empty() ? record::kRootContextId : t.stack.back().context_id;
  }
  // Where GPU work of the thread goes when no launch frame or context provider says otherwise.
  uint32_t GpuWorkScope(const ThreadRecorder& t) const;
  // Where metrics and GPU work of the thread go: the open launch frame, else the innermost scope.
  uint32_t CurrentContextOf(const ThreadRecorder& t) const;
  void PublishIfMain(const ThreadRecorder& t) {
    if (t.tid == main_tid_) main_context_.store(InnermostScope(t), std::memory_order_relaxed);
  }
  protond_result AddMetric(const char* name, record::NameClass type, uint64_t value_bits);
  // The records of a scope's enter and exit, for the sessions recording: out of the line of
  // EnterScope and ExitScope, which an idle pair runs alone.
  protond_result WriteEnter(ThreadRecorder& t, OpenScope& scope);
  protond_result WriteExit(ThreadRecorder& t, const OpenScope& scope);
  // Numbers the slots' current contents as a new recording set.
  void PublishRecordingSet();
  // The sessions of recording set `number` (low 16 bits); false when it is not known.
  bool SessionsOf(uint32_t number, SessionsBySlot* sessions) const;
  // Calls write(slot, session) for each slot of `mask` (slot_mask_ or delivery_mask_) that holds a
  // session, and combines the results: PROTOND_INACTIVE when there is none, else the first
  // failure, else PROTOND_OK.
  template <typename Write>
  protond_result ForEachSession(const std::atomic<uint32_t>& mask, Write write);

  NameTable names_;
  std::array<std::atomic<uint64_t>, kMaxSessions> slots_{};  // 0: a free slot
  // Bit i set: slot i has a session that records. One load tells a thread that nothing records.
  std::atomic<uint32_t> slot_mask_{0};
  // Bit i set: slot i has a session that takes what the GPU tracer delivers: one that records,
  // or one that stopped recording and is not finished (StopRecording .. FinishStopping).
  std::atomic<uint32_t> delivery_mask_{0};
  // The last kRecordingSets recording sets, by number modulo kRecordingSets: GPU work is
  // delivered long after its launch, into the sessions that recorded at the launch. A set's
  // number is written after its sessions (and invalidated before), so a reader that sees the
  // same number before and after reading them has a consistent copy.
  static constexpr uint32_t kRecordingSets = 256;
  struct NumberedSet {
    std::atomic<uint32_t> number{0};
    std::array<std::atomic<uint64_t>, kMaxSessions> sessions{};
  };
  std::array<NumberedSet, kRecordingSets> recording_sets_{};
  std::atomic<uint32_t> recording_set_{0};
  std::atomic<uint32_t> next_blob_id_{1};  // 0 is no blob
  std::atomic<bool> disabled_{false};
};

// The calling thread's last error message ("" if none), and setting it.
const char* LastError();
void SetLastError(std::string message);

}  // namespace protond::shim

#endif  // PROTOND_SHIM_SCOPES_RECORDER_H_
