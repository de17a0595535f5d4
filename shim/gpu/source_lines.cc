#include "shim/gpu/source_lines.h"

#include <cupti_pcsampling.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace protond::shim::gpu {

std::string SourceFrameName(std::string_view dir, std::string_view file, uint32_t line,
                            std::string_view function, uint64_t pc_offset) {
  if (line == 0 || file.empty()) {
    char offset[24];
    std::snprintf(offset, sizeof(offset), "+0x%" PRIx64, pc_offset);
    return std::string(function) + offset;
  }
  std::string name;
  if (!dir.empty()) name.append(dir).append("/");
  name.append(file).append(":").append(std::to_string(line)).append("@").append(function);
  return name;
}

void SourceLines::ModuleLoaded(const void* cubin, size_t bytes) {
  CUpti_GetCubinCrcParams params = {};
  params.size = CUpti_GetCubinCrcParamsSize;
  params.cubin = cubin;
  params.cubinSize = bytes;
  if (cuptiGetCubinCrc(&params) != CUPTI_SUCCESS) return;  // its samples are named by offset
  const auto* begin = static_cast<const uint8_t*>(cubin);
  std::lock_guard<std::mutex> lock(mutex_);
  cubins_.try_emplace(params.cubinCrc, begin, begin + bytes);
}

std::string SourceLines::Locate(uint64_t cubin_crc, const char* function, uint64_t pc_offset) {
  auto cubin = cubins_.find(cubin_crc);
  if (cubin == cubins_.end()) {
    ++without_cubin_;
    return SourceFrameName("", "", 0, function, pc_offset);
  }
  CUpti_GetSassToSourceCorrelationParams params = {};
  params.size = CUpti_GetSassToSourceCorrelationParamsSize;
  params.cubin = cubin->second.data();
  params.cubinSize = cubin->second.size();
  params.functionName = function;
  params.pcOffset = pc_offset;
  if (cuptiGetSassToSourceCorrelation(&params) != CUPTI_SUCCESS) {
    return SourceFrameName("", "", 0, function, pc_offset);
  }
  std::string name = SourceFrameName(params.dirName != nullptr ? params.dirName : "",
                                     params.fileName != nullptr ? params.fileName : "",
                                     params.lineNumber, function, pc_offset);
  // CUPTI allocates both with malloc and leaves them to the caller.
  std::free(params.fileName);
  std::free(params.dirName);
  return name;
}

uint32_t SourceLines::LineNameId(uint64_t cubin_crc, const char* function, uint64_t pc_offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = names_.try_emplace({cubin_crc, function, pc_offset}, 0);
  if (inserted) {
    it->second = host_.intern_name(Locate(cubin_crc, function, pc_offset).c_str(),
                                   static_cast<uint8_t>(record::NameClass::kSourceLine));
  }
  return it->second;
}

uint64_t SourceLines::SentCubin(uint64_t cubin_crc) {
  const uint32_t recording_set = host_.recording_set();
  std::unique_lock<std::mutex> lock(mutex_);
  auto cubin = cubins_.find(cubin_crc);
  if (cubin == cubins_.end() || cubin_crc == 0) return 0;
  auto [sent, first] = sent_in_.try_emplace(cubin_crc, recording_set);
  if (!first && sent->second == recording_set) return cubin_crc;
  sent->second = recording_set;
  // Cubins are never removed, so the bytes outlive the lock; another thread's samples need not
  // wait for a large cubin to be written.
  const std::vector<uint8_t>& bytes = cubin->second;
  lock.unlock();
  host_.write_cubin(cubin_crc, bytes.data(), bytes.size());
  return cubin_crc;
}

uint64_t SourceLines::without_cubin() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return without_cubin_;
}

}  // namespace protond::shim::gpu
