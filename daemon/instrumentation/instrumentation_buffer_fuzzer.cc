// Decodes arbitrary bytes both ways the daemon may meet them: as Triton's host buffer (the whole
// input), and as a device buffer whose layout the first 4 bytes choose. The decoder must
// terminate, never read out of bounds, and return intervals that agree with their own totals.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "daemon/instrumentation/circular_buffer.h"
#include "daemon/instrumentation/triton_host_buffer.h"
#include "mlir-instrument/buffer/buffer_layout.h"

namespace {

using protond::instrumentation::BufferLayout;
using protond::instrumentation::DecodedBuffer;

void CheckConsistent(const DecodedBuffer& decoded, uint32_t record_cost_cycles) {
  uint64_t intervals = 0;
  for (const auto& block : decoded.blocks) {
    for (const auto& warp : block.warps) {
      if (warp.records_lost > warp.records_written) __builtin_trap();
      for (const auto& interval : warp.intervals) {
        if (interval.end_cycle - interval.start_cycle != interval.cycles) __builtin_trap();
        if (interval.adjusted_cycles > interval.cycles &&
            interval.adjusted_cycles != record_cost_cycles / 2) {
          __builtin_trap();
        }
        ++intervals;
      }
    }
  }
  uint64_t counted = 0;
  for (const auto& scope : decoded.scopes) counted += scope.count;
  if (counted != intervals) __builtin_trap();
  (void)protond::instrumentation::DescribeProblems(decoded.problems);
}

BufferLayout LayoutFrom(const uint8_t* config) {
  BufferLayout layout;
  layout.num_warps = 1 + config[0] % 8;
  const uint32_t data_bytes = 8 * layout.num_warps * (1 + config[1] % 32);
  const uint32_t metadata = 40 + 4 * layout.num_warps;
  layout.block_bytes = (metadata + data_bytes + 127) / 128 * 128;
  layout.data_bytes = (config[2] & 1) ? 0 : data_bytes;
  layout.record_cost_cycles = (config[2] >> 1) % 40;
  for (uint32_t warp = 0; warp < layout.num_warps; ++warp) {
    if (config[3] >> warp & 1) layout.profiled_warps.push_back(warp);
  }
  layout.scope_names = {"a", "b", "", "d"};
  return layout;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> input(data, size);
  auto host = protond::instrumentation::DecodeTritonHostBuffer(input, {"a", "b"});
  if (host.ok()) {
    auto parsed = protond::instrumentation::ParseTritonHostBuffer(input);
    CheckConsistent(*host, parsed->layout.record_cost_cycles);
  }
  if (size < 4) return 0;
  const BufferLayout layout = LayoutFrom(data);
  auto device = protond::instrumentation::DecodeCircularBuffer(input.subspan(4), layout);
  if (device.ok()) CheckConsistent(*device, layout.record_cost_cycles);
  return 0;
}
