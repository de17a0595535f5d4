// Names the instruction a PC sample was taken at: its source line, Proton's way
// ("dir/file.py:42@kernel"), from the line table of the module's cubin; or, for a cubin without
// line information or one loaded before sampling began (the driver hands out cubins only as they
// load), the function and the instruction's offset ("kernel+0x1a0"). Cubins are copied at load,
// while sampling is on, and looked up by the CRC that CUPTI puts in each sample; the daemon gets
// a copy of each sampled one, for the text of its instructions. Thread-safe.
#ifndef PROTOND_SHIM_GPU_SOURCE_LINES_H_
#define PROTOND_SHIM_GPU_SOURCE_LINES_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "shim/gpu/gpu_api.h"

namespace protond::shim::gpu {

// "dir/file:line@function", "file:line@function" without a directory, and "function+0x1a0"
// without a line.
std::string SourceFrameName(std::string_view dir, std::string_view file, uint32_t line,
                            std::string_view function, uint64_t pc_offset);

class SourceLines {
 public:
  explicit SourceLines(const ProtondGpuHost& host) : host_(host) {}

  // Keeps a copy of a module's cubin for the samples of its functions.
  void ModuleLoaded(const void* cubin, size_t bytes);

  // The NameClass::kSourceLine name of the instruction at `pc_offset` of `function` in the
  // cubin with `cubin_crc`.
  uint32_t LineNameId(uint64_t cubin_crc, const char* function, uint64_t pc_offset);

  // What PC samples in the cubin with `cubin_crc` carry as theirs: `cubin_crc` when the cubin is
  // held, after sending it to the sessions (host write_cubin) if it was not sent while the same
  // sessions recorded; 0 when it is not held (the daemon then has no text for its instructions).
  uint64_t SentCubin(uint64_t cubin_crc);

  // Instructions named by offset because their cubin was not seen loading.
  uint64_t without_cubin() const;

 private:
  std::string Locate(uint64_t cubin_crc, const char* function, uint64_t pc_offset);

  const ProtondGpuHost& host_;
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, std::vector<uint8_t>> cubins_;  // by CRC
  std::map<std::tuple<uint64_t, std::string, uint64_t>, uint32_t> names_;
  std::unordered_map<uint64_t, uint32_t> sent_in_;  // CRC -> the recording set it was sent in
  uint64_t without_cubin_ = 0;
};

}  // namespace protond::shim::gpu

#endif  // PROTOND_SHIM_GPU_SOURCE_LINES_H_
