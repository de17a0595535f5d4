// Reads arbitrary bytes as the memory of a process that has an ELF object mapped at kBase, as
// the loader reads a target's libc.so.6: the bytes are the target's to choose. The reader must
// terminate, read only what the input holds, and answer with an address or an error.
//
// The corpus holds memory images of a small library that defines the names looked up here (one
// with both hash tables, one with each alone; mmap also in a compat version), laid out at their
// addresses as the loader maps them; elf_symbols_test.cc checks what they resolve to.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "daemon/attach/internal/elf_symbols.h"

namespace {

constexpr uint64_t kBase = 0x10000;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto read = [data, size](uint64_t address, void* out, size_t bytes) {
    if (address < kBase || address - kBase > size || bytes > size - (address - kBase)) return false;
    std::memcpy(out, data + (address - kBase), bytes);
    return true;
  };
  const absl::StatusOr<protond::attach::DynamicTables> tables =
      protond::attach::ReadDynamicTables(read, kBase);
  if (!tables.ok()) return 0;
  protond::attach::DynamicTables sysv_only = *tables;
  sysv_only.gnu_hash = 0;
  for (const char* name : {"dlopen", "dlsym", "dlerror", "__errno_location", "mmap", "munmap"}) {
    (void)protond::attach::FindFunction(read, *tables, name);
    if (sysv_only.sysv_hash != 0) (void)protond::attach::FindFunction(read, sysv_only, name);
  }
  return 0;
}
