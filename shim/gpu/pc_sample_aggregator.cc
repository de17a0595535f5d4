#include "shim/gpu/pc_sample_aggregator.h"

#include <algorithm>
#include <numeric>

namespace protond::shim::gpu {

void PcSampleAggregator::KernelRan(uint32_t function_name_id, uint32_t context_id,
                                   uint32_t kernel_name_id, uint64_t gpu_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  // A kernel of 0 ns still ran: it weighs 1 ns, so that its node can take samples.
  runs_[function_name_id][{context_id, kernel_name_id}] += std::max<uint64_t>(gpu_ns, 1);
}

void PcSampleAggregator::AddSamples(const SampleKey& key, uint64_t samples) {
  if (samples == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  pending_[key] += samples;
}

void PcSampleAggregator::Split(const SampleKey& key, uint64_t samples,
                               const std::map<Target, uint64_t>& targets,
                               std::vector<record::PcSampleRecord>& out) {
  using Wide = unsigned __int128;
  const Wide total_ns = std::accumulate(targets.begin(), targets.end(), Wide{0},
                                        [](Wide sum, const auto& t) { return sum + t.second; });
  // Largest remainder: each target gets the floor of its share, and the samples left over go to
  // the targets with the largest fractions, so the parts add up to `samples` exactly.
  struct Part {
    Target target;
    uint64_t samples;
    Wide remainder;
  };
  std::vector<Part> parts;
  uint64_t given = 0;
  for (const auto& [target, ns] : targets) {
    const Wide scaled = Wide{samples} * ns;
    parts.push_back({target, static_cast<uint64_t>(scaled / total_ns), scaled % total_ns});
    given += parts.back().samples;
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const Part& a, const Part& b) { return a.remainder > b.remainder; });
  for (size_t i = 0; given < samples; ++i, ++given) parts[i % parts.size()].samples++;
  for (const Part& part : parts) {
    if (part.samples == 0) continue;
    out.push_back(record::MakePcSample(part.target.context_id, part.target.kernel_name_id,
                                       key.line_name_id, key.reason_name_id, key.pc_offset,
                                       part.samples, key.cubin_crc));
  }
}

std::vector<record::PcSampleRecord> PcSampleAggregator::TakeRecords(bool final) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<record::PcSampleRecord> out;
  for (auto it = pending_.begin(); it != pending_.end();) {
    const auto& [key, samples] = *it;
    auto runs = runs_.find(key.function_name_id);
    if (runs != runs_.end()) {
      Split(key, samples, runs->second, out);
    } else if (final) {
      out.push_back(record::MakePcSample(record::kRootContextId, key.function_name_id,
                                         key.line_name_id, key.reason_name_id, key.pc_offset,
                                         samples, key.cubin_crc));
      unattributed_samples_ += samples;
    } else {
      ++it;
      continue;
    }
    it = pending_.erase(it);
  }
  return out;
}

uint64_t PcSampleAggregator::unattributed_samples() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return unattributed_samples_;
}

}  // namespace protond::shim::gpu
