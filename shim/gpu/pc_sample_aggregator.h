// Puts PC samples under the kernels they were taken in. CUPTI's continuous PC sampling, which
// lets kernels run concurrently, tells which function a sample is from but not which launch, so
// the samples of a function go to the nodes (context and kernel name) its kernel records were
// attributed to, split in proportion to the GPU time the function spent at each. Samples of a
// function whose kernel records have not been converted yet wait for them: CUPTI delivers
// activity buffers and PC samples independently. Thread-safe: kernel records come from CUPTI's
// buffer thread, samples from the sampler's.
#ifndef PROTOND_SHIM_GPU_PC_SAMPLE_AGGREGATOR_H_
#define PROTOND_SHIM_GPU_PC_SAMPLE_AGGREGATOR_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "common/record/record_format.h"

namespace protond::shim::gpu {

// Where an instruction's samples are and why the warp was there.
struct SampleKey {
  uint32_t function_name_id;  // the CUDA function (a NameClass::kKernel name)
  uint32_t line_name_id;
  uint32_t reason_name_id;
  uint32_t pc_offset;
  uint64_t cubin_crc = 0;  // 0: the daemon has not been sent the cubin
  auto operator<=>(const SampleKey&) const = default;
};

class PcSampleAggregator {
 public:
  // A kernel of `function_name_id` ran for `gpu_ns` and its record went to `context_id` as
  // `kernel_name_id` (the function's name, or a launch frame's).
  void KernelRan(uint32_t function_name_id, uint32_t context_id, uint32_t kernel_name_id,
                 uint64_t gpu_ns);
  void AddSamples(const SampleKey& key, uint64_t samples);

  // The records of the samples added so far whose function has run. With `final` (the session
  // ends: every kernel record has been converted), the others too, under ROOT and named after
  // their function, and counted in unattributed_samples().
  std::vector<record::PcSampleRecord> TakeRecords(bool final);
  uint64_t unattributed_samples() const;

 private:
  struct Target {
    uint32_t context_id;
    uint32_t kernel_name_id;
    auto operator<=>(const Target&) const = default;
  };
  // Appends the records of `samples` split over `targets` by their GPU time.
  static void Split(const SampleKey& key, uint64_t samples,
                    const std::map<Target, uint64_t>& targets,
                    std::vector<record::PcSampleRecord>& out);

  mutable std::mutex mutex_;
  std::map<uint32_t, std::map<Target, uint64_t>> runs_;  // function -> target -> GPU ns
  std::map<SampleKey, uint64_t> pending_;
  uint64_t unattributed_samples_ = 0;
};

}  // namespace protond::shim::gpu

#endif  // PROTOND_SHIM_GPU_PC_SAMPLE_AGGREGATOR_H_
