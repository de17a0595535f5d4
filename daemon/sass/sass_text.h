// The text of a kernel's SASS instructions ("LDG.E R4, desc[UR4][R2.64]"), by offset in its
// function, from the kernel's cubin through NVIDIA's nvdisasm (CUDA toolkit), for the
// instruction nodes of a PC-sampling tree. Every function may be called from any thread.
#ifndef PROTOND_DAEMON_SASS_SASS_TEXT_H_
#define PROTOND_DAEMON_SASS_SASS_TEXT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace protond::sass {

// The instructions of `function` in `listing`, the output of `nvdisasm -c`, by byte offset in
// the function's section (.text.<function>), as nvdisasm prints them but without the offset
// comment and the closing ";": "@P2 BRA `(.L_x_1)". A subroutine that the compiler put in the
// same section stays with the function. NOT_FOUND names the functions the listing has when it
// has no section for `function`; INVALID_ARGUMENT when the section repeats an offset.
absl::StatusOr<std::map<uint64_t, std::string>> ParseNvdisasm(std::string_view listing,
                                                              std::string_view function);

// How long nvdisasm may run and how much it may print before it is killed: a query waits for it,
// and its whole listing is held in memory.
struct NvdisasmLimits {
  int timeout_ms = 30'000;
  size_t max_output_bytes = size_t{512} << 20;
};

// The output of `nvdisasm -c` for `cubin`, which goes to nvdisasm through a file of its own in
// $TMPDIR (or /tmp), removed before the return. When nvdisasm fails, UNKNOWN with its exit status
// and what it wrote to stderr:
// "nvdisasm failed (exit 1): nvdisasm fatal   : File ... does not appear to be an Elf file";
// DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED when it went past `limits` (and was killed).
absl::StatusOr<std::string> RunNvdisasm(const std::string& nvdisasm, std::span<const uint8_t> cubin,
                                        const NvdisasmLimits& limits = NvdisasmLimits());

// The path of nvdisasm: $PROTOND_NVDISASM when it names an executable file, else the first
// nvdisasm on $PATH, else /usr/local/cuda/bin/nvdisasm; nothing when none is executable.
std::optional<std::string> FindNvdisasm();

}  // namespace protond::sass

#endif  // PROTOND_DAEMON_SASS_SASS_TEXT_H_
