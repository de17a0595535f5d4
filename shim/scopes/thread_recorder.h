// Per-thread state of the recorder: the thread's lanes (one per session slot, each knowing which
// ids it has defined), its scope stack and state, and a small cache from (parent, name pointer)
// to context id. Owned by the thread (thread-local pointer), released at thread exit.
#ifndef PROTOND_SHIM_SCOPES_THREAD_RECORDER_H_
#define PROTOND_SHIM_SCOPES_THREAD_RECORDER_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "shim/ring/ring_writer.h"

namespace protond::shim {

// How many sessions a process records into at once (Proton allows any number; four covers an
// in-process session and protonctl's on-demand ones side by side).
inline constexpr uint32_t kMaxSessions = 4;

// Per session slot: the session an enter record was written for (0: not written), so that the
// exit goes where the enter went and nowhere else.
using SessionsBySlot = std::array<uint64_t, kMaxSessions>;

// Per slot, the session the enter was written for (and where it was lost: the exit is lost there
// too). Only the slots whose bit is set hold one: an enter while no session records writes the
// first 16 bytes and nothing more.
struct OpenScope {
  OpenScope(uint32_t context, const std::string* interned_name)
      : context_id(context), name(interned_name) {}

  bool RecordedIn(uint32_t slot, uint64_t session) const {
    return (recorded_slots >> slot & 1u) != 0 && recorded_in[slot] == session;
  }
  bool DroppedIn(uint32_t slot, uint64_t session) const {
    return (dropped_slots >> slot & 1u) != 0 && dropped_in[slot] == session;
  }
  void SetRecorded(uint32_t slot, uint64_t session) {
    recorded_in[slot] = session;
    recorded_slots |= static_cast<uint8_t>(1u << slot);
  }
  void SetDropped(uint32_t slot, uint64_t session) {
    dropped_in[slot] = session;
    dropped_slots |= static_cast<uint8_t>(1u << slot);
  }

  uint32_t context_id;
  uint8_t recorded_slots = 0;
  uint8_t dropped_slots = 0;
  const std::string* name;  // interned; compared against exit's name
  SessionsBySlot recorded_in;
  SessionsBySlot dropped_in;
};
static_assert(kMaxSessions <= 8, "OpenScope keeps a byte of slot bits");

// The thread's lane for one session slot: records of the slot's session go there, so that each
// lane carries one session at a time and the daemon needs no fan-out.
struct SlotLane {
  ring::LaneWriter lane;
  uint64_t session = 0;               // the session the lane last announced
  std::vector<bool> context_defined;  // per context id: defined in this lane
  std::vector<bool> name_defined;     // per name id
  bool announced = false;             // ThreadBegin written since the lane was claimed
  bool stalled = false;               // a wait for room timed out; no more waits until room appears
  bool told_too_deep = false;         // the session was told that deeper scopes are left out
  // A TSC timestamp at or past this needs a clock pair (kClockSync) before it in the lane: 0 after
  // each session's start in the lane, then kClockSyncTicks after the last pair.
  uint64_t next_clock_sync = 0;
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
  std::array<SlotLane, kMaxSessions> lanes;
  std::vector<OpenScope> stack;
  uint32_t launch_context = 0;  // a launch frame, between launch enter and exit; 0: none
  // The context provider's answer for the CUDA call in progress (kNoProvidedContext: not asked).
  uint32_t provided_context = kNoProvidedContext;
  uint32_t state_name_id = 0;  // 0: no state
  SessionsBySlot state_recorded_in{};
  SessionsBySlot state_dropped_in{};
  ContextCacheEntry cache[kCacheSize];
  NameCacheEntry name_cache[kNameCacheSize];
  // The ancestors of a context that a lane has not defined yet, innermost first: scratch, kept
  // so that catching up allocates only the first time a thread is that deep.
  std::vector<uint32_t> undefined_contexts;
  std::string last_error;
};

// The calling thread's recorder, created on first use.
ThreadRecorder& CurrentThread();

}  // namespace protond::shim

#endif  // PROTOND_SHIM_SCOPES_THREAD_RECORDER_H_
