// Triton 3.6's host buffer: what Proton's instrumentation hook copies out after a launch when
// `InstrumentationHook.enable_host_buffer` is set (triton/profiler/hooks/instrumentation.py),
// a small header followed by the whole device buffer. It carries no scope names: those come
// from the compiler (triton_proton.get_scope_id_names on the kernel's TTGIR).
//
//   0         4          8          12          16          20       24       28       32
//   +---------+----------+----------+-----------+-----------+--------+--------+--------+
//   | version | header   | header   | payload   | payload   | device | block  | total  |
//   | (1)     | offset(4)| size     | offset    | size      | type   | num    | unit   |
//   +---------+----------+----------+-----------+-----------+--------+--------+--------+
//   32           36        40
//   +------------+---------+--------------------------+-----------------------------------+
//   | scratch    | uid num | uid vec (uid num x u32)  | payload: the device buffer        |
//   | mem size   |         | the profiled warps       | (buffer/buffer_layout.h), payload |
//   +------------+---------+--------------------------+-----------------------------------+
//
// All u32, little-endian. header size = 40 + 4 * uid num = payload offset; device type 1 is
// CUDA, 2 is HIP; total unit is the CTA's warp count; scratch mem size is one CTA's block.
#ifndef PROTOND_DAEMON_INSTRUMENTATION_TRITON_HOST_BUFFER_H_
#define PROTOND_DAEMON_INSTRUMENTATION_TRITON_HOST_BUFFER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/instrumentation/circular_buffer.h"

namespace protond::instrumentation {

inline constexpr uint32_t kTritonHostBufferVersion = 1;
inline constexpr uint32_t kTritonHostHeaderBytes = 40;
inline constexpr uint32_t kTritonDeviceCuda = 1;
inline constexpr uint32_t kTritonDeviceHip = 2;

struct TritonHostBuffer {
  uint32_t device_type = 0;
  BufferLayout layout;  // record_cost_cycles from the device type, as Proton's time shift
  std::span<const uint8_t> device_buffer;  // points into the host buffer
};

// Splits a host buffer into its layout and device buffer. InvalidArgumentError, naming the
// field and its value, for a short buffer, an unknown version, header fields that disagree
// with each other, or a payload that runs past the end (a truncated buffer).
absl::StatusOr<TritonHostBuffer> ParseTritonHostBuffer(std::span<const uint8_t> host_buffer);

// ParseTritonHostBuffer, then DecodeCircularBuffer with the given scope names (by scope id).
absl::StatusOr<DecodedBuffer> DecodeTritonHostBuffer(std::span<const uint8_t> host_buffer,
                                                     std::vector<std::string> scope_names);

}  // namespace protond::instrumentation

#endif  // PROTOND_DAEMON_INSTRUMENTATION_TRITON_HOST_BUFFER_H_
