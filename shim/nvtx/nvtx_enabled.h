// Whether the shim records NVTX ranges, for both halves of the shim: the front decides at load
// whether to name itself NVTX's injection library, the core whether to install its handlers.
// The C library only (the front links no C++ library).
#ifndef PROTOND_SHIM_NVTX_NVTX_ENABLED_H_
#define PROTOND_SHIM_NVTX_NVTX_ENABLED_H_

#include <stdlib.h>
#include <string.h>
#include <strings.h>

namespace protond::shim {

// TRITON_ENABLE_NVTX, as Proton reads it (unset: yes; set: only "1", "true" or "on", in any
// case).
inline bool NvtxRangesEnabled() {
  const char* text = getenv("TRITON_ENABLE_NVTX");
  if (text == nullptr) return true;
  return strcmp(text, "1") == 0 || strcasecmp(text, "true") == 0 || strcasecmp(text, "on") == 0;
}

}  // namespace protond::shim

#endif  // PROTOND_SHIM_NVTX_NVTX_ENABLED_H_
