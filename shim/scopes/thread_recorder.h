// Per-thread state of the recorder: the thread's lane, its scope stack and state, which ids its
// lane has already defined, and a small cache from (parent, name pointer) to context id. Owned by
// the thread (thread-local pointer), released at thread exit.
#ifndef PROTOND_SHIM_SCOPES_THREAD_RECORDER_H_
#define PROTOND_SHIM_SCOPES_THREAD_RECORDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "shim/ring/ring_writer.h"

namespace protond::shim {

struct OpenScope {
  uint32_t context_id;
  const std::string* name;       // interned; compared against exit's name
  uint64_t recorded_in_session;  // 0 when its enter record was not written
};

struct ContextCacheEntry {
  uint32_t parent_id = 0;
  uint32_t context_id = 0;
  bool launch_frame = false;
  const char* key_pointer = nullptr;  // the caller's pointer, checked by content as well
  const std::string* name = nullptr;  // the interned name
};

struct NameCacheEntry {
  const char* key_pointer = nullptr;
  uint32_t name_id = 0;
  uint8_t name_class = 0;   // the class asked for
  uint8_t first_class = 0;  // the class the name was first given
  const std::string* name = nullptr;
};

inline constexpr uint32_t kNoProvidedContext = UINT32_MAX - 1;

struct ThreadRecorder {
  static constexpr uint32_t kCacheSize = 256;
  static constexpr uint32_t kNameCacheSize = 64;

  uint32_t tid = 0;
  ring::LaneWriter lane;
  uint64_t lane_session = 0;          // the session the lane last announced
  std::vector<bool> context_defined;  // per context id: defined in this lane
  std::vector<bool> name_defined;     // per name id
  std::vector<OpenScope> stack;
  uint32_t launch_context = 0;  // a launch frame, between launch enter and exit; 0: none
  // The context provider's answer for the CUDA call in progress (kNoProvidedContext: not asked).
  uint32_t provided_context = kNoProvidedContext;
  uint32_t state_name_id = 0;  // 0: no state
  uint64_t state_recorded_in_session = 0;
  bool lane_announced = false;  // ThreadBegin written since the lane was claimed
  ContextCacheEntry cache[kCacheSize];
  NameCacheEntry name_cache[kNameCacheSize];
  std::string last_error;
};

// The calling thread's recorder, created on first use.
ThreadRecorder& CurrentThread();

}  // namespace protond::shim

#endif  // PROTOND_SHIM_SCOPES_THREAD_RECORDER_H_
