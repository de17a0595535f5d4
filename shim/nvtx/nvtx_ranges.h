// NVTX push/pop ranges as protond scopes, as Proton records them (TRITON_ENABLE_NVTX): the shim
// is an NVTX injection library. NVTX loads the library named by NVTX_INJECTION64_PATH at a
// program's first NVTX call and calls its InitializeInjectionNvtx2, which installs handlers for
// nvtxRangePushA/W/Ex and nvtxRangePop. A push enters a scope on the calling thread's stack, the
// one protond_scope_enter uses, and a pop exits the innermost scope, whatever opened it.
//
// Every NVTX copy in the process (each library that includes the header-only nvtx3 has its own)
// initializes separately and calls InitializeInjectionNvtx2 again; that is expected.
#ifndef PROTOND_SHIM_NVTX_NVTX_RANGES_H_
#define PROTOND_SHIM_NVTX_NVTX_RANGES_H_

// The shim implements NVTX, it does not call it: only NVTX's types, not its client code.
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <cstddef>
#include <string>

#include "shim/nvtx/nvtx_enabled.h"

namespace protond::shim {

// The scope of a range whose message the shim cannot read (empty, or a registered string handle).
inline constexpr char kUnnamedNvtxRange[] = "<unnamed NVTX range>";

// NVTX's InitializeInjectionNvtx2 (the shim's front forwards it here): called once by each NVTX
// copy in the process, at its first NVTX call, on whichever thread makes it; installs the range
// handlers. Always 1: returning 0 would make that NVTX unload the shim.
int InstallNvtxRanges(NvtxGetExportTableFunc_t get_export_table);

// Writes `text` (UTF-32, as wchar_t is on Linux) as NUL-terminated UTF-8 into `out`, truncated
// to fit `out_bytes` at a character boundary; invalid code points become U+FFFD.
void WideToUtf8(const wchar_t* text, char* out, size_t out_bytes);

// The scope name of a range pushed with nvtxRangePushEx: its ASCII message, its wide message in
// UTF-8 (written into `buffer`), or kUnnamedNvtxRange.
const char* NvtxRangeName(const nvtxEventAttributes_t* attributes, char* buffer,
                          size_t buffer_bytes);

}  // namespace protond::shim

#endif  // PROTOND_SHIM_NVTX_NVTX_RANGES_H_
