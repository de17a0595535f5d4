// The dynamic symbols of an ELF object mapped in a process, read through a byte reader: the loader
// finds dlopen and its kin in the target's own libc.so.6 this way, with no access to the target's
// files (a container's libc is the one it mapped, whatever the host has).
//
// Every byte comes from the target and is untrusted: each offset and count is checked before use,
// each walk is bounded, and a bad table gives an error, never a read the reader did not allow or
// a loop without end.
#ifndef PROTOND_DAEMON_ATTACH_INTERNAL_ELF_SYMBOLS_H_
#define PROTOND_DAEMON_ATTACH_INTERNAL_ELF_SYMBOLS_H_

#include <cstddef>
#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::attach {

// Copies `size` bytes at `address` of the process into `out`; false when any cannot be read.
using ReadBytes = absl::FunctionRef<bool(uint64_t address, void* out, size_t size)>;

// Where one mapped object keeps its dynamic symbols (absolute addresses; 0: the table is absent).
struct DynamicTables {
  uint64_t load_bias = 0;  // added to a symbol's value gives its address
  uint64_t symtab = 0;
  uint64_t strtab = 0;
  uint64_t strtab_bytes = 0;
  uint64_t gnu_hash = 0;
  uint64_t sysv_hash = 0;  // DT_HASH, used only where DT_GNU_HASH is absent
  uint64_t versym = 0;
};

// Reads the ELF header at `load_base` (the object's lowest mapping, file offset 0), its program
// headers and its PT_DYNAMIC segment. 64-bit little-endian objects only.
absl::StatusOr<DynamicTables> ReadDynamicTables(ReadBytes read, uint64_t load_base);

// The address of the function `name`: a defined STT_FUNC symbol of the default version (what
// dlsym and the static linker pick; a compat version such as memcpy@GLIBC_2.2.5 is skipped).
// kNotFound when there is none (an IFUNC counts as none: its value is a resolver, not the
// function); kFailedPrecondition when the tables cannot be read.
absl::StatusOr<uint64_t> FindFunction(ReadBytes read, const DynamicTables& tables,
                                      absl::string_view name);

}  // namespace protond::attach

#endif  // PROTOND_DAEMON_ATTACH_INTERNAL_ELF_SYMBOLS_H_
