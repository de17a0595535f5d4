// CUPTI's PC sampling (cupti_pcsampling.h) for sessions in pcsampling mode. It samples in
// continuous mode, so kernels keep running concurrently and no launch waits (Proton's serialized
// mode synchronizes around every kernel); the cost is that samples name their function but not
// their launch, which PcSampleAggregator makes up for.
//
// What CUPTI allows, measured on the H100 (bench/research/pc_sampling_modes.cu and the GPU
// tests), shapes the two ways a context is sampled:
// - A context created while sampling runs is enabled in CUPTI's creation callback and samples
//   continuously; Collect(), from the tracer's collector thread, takes its samples.
// - A context that existed before (a program already running, a session started after torch
//   made its context) delivers nothing that way: it needs ranges (start/stop control), and
//   hands out samples only when a range stops. Starting or stopping a range from a thread of
//   protond's, while a program thread was inside a CUDA call, deadlocked the two (each held a
//   lock, CUPTI's or the driver's, that the other wanted). So ranges are started, stopped and
//   collected on the program's own threads, at a kernel launch (Launching()), at most every
//   kRangePeriod, as Proton does at every launch.
// Finish() collects the last samples and turns sampling off, on a program thread too when it
// can. A context that cannot be sampled (no permission to the GPU's performance counters, an
// unsupported GPU) is reported into the session once, and the program runs on. Thread-safe.
#ifndef PROTOND_SHIM_GPU_PC_SAMPLER_H_
#define PROTOND_SHIM_GPU_PC_SAMPLER_H_

#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "shim/gpu/gpu_api.h"
#include "shim/gpu/pc_sample_aggregator.h"
#include "shim/gpu/source_lines.h"

namespace protond::shim::gpu {

class PcSampler {
 public:
  static constexpr std::chrono::milliseconds kRangePeriod{100};

  // `period_log2`: sample every 2^period_log2 cycles; 0 for CUPTI's default.
  PcSampler(const ProtondGpuHost& host, uint32_t period_log2);
  PcSampler(const PcSampler&) = delete;
  PcSampler& operator=(const PcSampler&) = delete;

  // Notes the contexts that exist now (primary ones, and the calling thread's): they are sampled
  // in ranges from their next kernel launch. Makes no CUPTI call.
  void AddExistingContexts();
  // Enables continuous sampling on a context being created (CUPTI's creation callback).
  void EnableCreatedContext(CUcontext context);
  // A kernel is being launched in `context` on the calling (program) thread: starts sampling
  // there if the context existed before, rotates its range when kRangePeriod has passed, and
  // carries out a Finish() that waits for a program thread.
  void Launching(CUcontext context);
  // Collects `context`'s samples and disables sampling on it: it is being destroyed (CUPTI's
  // callback, on the program's thread).
  void DisableContext(CUcontext context);
  void ModuleLoaded(const CUpti_ModuleResourceData& module);
  // Moves the samples of the continuously sampled contexts into the aggregator.
  void Collect();
  // Collects the last samples and turns sampling off: at once on a thread that launched kernels;
  // else on the next launching thread, waiting up to `patience` for one, and after that on the
  // calling thread (a program that launches nothing is in no CUDA call that could deadlock).
  void Finish(std::chrono::milliseconds patience);

  PcSampleAggregator& aggregator() { return aggregator_; }
  // One line for the session on what the samples lack ("" when nothing): samples the hardware
  // dropped, functions whose cubin loaded before sampling began, samples of kernels never seen.
  std::string Shortcomings();

 private:
  // CUPTI's parsed-data buffer and the per-PC stall reason arrays it points into.
  struct DataBuffer {
    CUpti_PCSamplingData data = {};
    std::vector<CUpti_PCSamplingPCData> pcs;
    std::vector<CUpti_PCSamplingStallReason> reasons;
    DataBuffer(size_t pc_count, size_t reasons_per_pc);
    void Reset();
  };
  struct Context {
    std::vector<uint32_t> reason_name_ids;  // by CUPTI's stall reason index (0: unknown)
    std::unique_ptr<DataBuffer> collected;  // filled by cuptiPCSamplingGetData
    std::unique_ptr<DataBuffer> flushed;    // filled by CUPTI itself when a module reloads
    bool ranged = false;                    // sampled in ranges (it existed before)
    bool in_range = false;
  };

  // Enables and configures sampling on `context`, in ranges if `ranged`; the reason when it
  // cannot.
  std::string Configure(CUcontext context, bool ranged, Context& state);
  void EnableLocked(CUcontext context, bool ranged);
  // Takes what CUPTI holds for the context (stopping its range first, if one runs).
  void CollectLocked(CUcontext context, Context& state);
  void StartRangeLocked(CUcontext context, Context& state);
  void DisableLocked(CUcontext context);
  void FinishLocked();
  void Consume(Context& state, DataBuffer& buffer);
  uint32_t FunctionNameId(const char* name);
  void ReportOnce(const std::string& reason);

  const ProtondGpuHost& host_;
  const uint32_t period_log2_;
  PcSampleAggregator aggregator_;
  SourceLines lines_;
  std::mutex mutex_;
  std::unordered_map<CUcontext, Context> contexts_;
  std::unordered_set<CUcontext> existing_;  // alive when sampling began, not enabled yet
  std::unordered_set<CUcontext> refused_;   // contexts sampling could not be enabled on
  // CUPTI shares a function's name among its records; the text is checked as well.
  std::unordered_map<const char*, std::pair<std::string, uint32_t>> function_names_;
  uint64_t dropped_samples_ = 0;
  bool hardware_buffer_full_ = false;
  bool reported_ = false;
  // Launching()'s fast path: nothing to do before this time (steady clock, ns) unless a finish
  // is asked for.
  std::atomic<int64_t> next_rotation_ns_{0};
  std::atomic<bool> finish_requested_{false};
  std::condition_variable finished_;
  bool finish_done_ = false;  // guarded by mutex_
};

}  // namespace protond::shim::gpu

#endif  // PROTOND_SHIM_GPU_PC_SAMPLER_H_
