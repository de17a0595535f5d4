// Maps a CUPTI correlation id to the context that was current on the thread that made the API
// call and the recording set (which sessions recorded) at that moment, from the launch callback
// (an application thread, so: one atomic store, no lock, no allocation) to the buffer-completion
// thread, which reads it when the activity record arrives.
// A fixed table indexed by the id's low bits: an entry is overwritten once 2^kSlotBits later
// calls have been made, long after its record has normally arrived; a lookup that finds another
// id reports a miss rather than a wrong context.
#ifndef PROTOND_SHIM_GPU_CORRELATION_MAP_H_
#define PROTOND_SHIM_GPU_CORRELATION_MAP_H_

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>

namespace protond::shim::gpu {

struct Launch {
  uint32_t context_id;
  uint32_t recording_set;  // its low 16 bits (see ProtondGpuHost::recording_set)
};

class CorrelationMap {
 public:
  static constexpr int kSlotBits = 20;  // 8 MiB of slots, touched lazily

  // calloc: the kernel hands out zero pages on first touch, so an idle map costs no memory.
  CorrelationMap() : slots_(static_cast<std::atomic<uint64_t>*>(std::calloc(kSlots, 8))) {}
  bool ok() const { return slots_ != nullptr; }

  // An entry: the id's bits above the slot index (the index holds the rest), a bit that marks the
  // slot used, the recording set's low 16 bits, and the context.
  void Put(uint32_t correlation_id, uint32_t context_id, uint32_t recording_set) {
    const uint64_t entry = uint64_t{correlation_id >> kSlotBits} << kIdShift | kUsed |
                           uint64_t{recording_set & 0xffff} << 32 | context_id;
    slots_[correlation_id & kMask].store(entry, std::memory_order_release);
  }

  std::optional<Launch> Find(uint32_t correlation_id) const {
    const uint64_t entry = slots_[correlation_id & kMask].load(std::memory_order_acquire);
    if ((entry & kUsed) == 0 || entry >> kIdShift != correlation_id >> kSlotBits) {
      return std::nullopt;
    }
    return Launch{static_cast<uint32_t>(entry), static_cast<uint32_t>(entry >> 32) & 0xffff};
  }

 private:
  static constexpr uint32_t kSlots = 1u << kSlotBits;
  static constexpr uint32_t kMask = kSlots - 1;
  static constexpr int kIdShift = 64 - (32 - kSlotBits);
  static constexpr uint64_t kUsed = uint64_t{1} << 48;
  struct Free {
    void operator()(std::atomic<uint64_t>* p) const { std::free(p); }
  };
  static_assert(sizeof(std::atomic<uint64_t>) == 8 && std::atomic<uint64_t>::is_always_lock_free);
  std::unique_ptr<std::atomic<uint64_t>[], Free> slots_;
};

}  // namespace protond::shim::gpu

#endif  // PROTOND_SHIM_GPU_CORRELATION_MAP_H_
