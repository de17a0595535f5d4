// Decodes arbitrary bytes as a lane's content, record after record, the way the daemon does:
// the decoder must terminate, never read out of bounds, and always make progress.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/record/record_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> rest(data, size);
  while (!rest.empty()) {
    auto record = protond::record::DecodeRecord(rest);
    if (!record.ok()) break;
    if (record->size_bytes == 0 || record->size_bytes > rest.size()) __builtin_trap();
    rest = rest.subspan(record->size_bytes);
  }
  return 0;
}
