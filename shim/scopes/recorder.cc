#include "shim/scopes/recorder.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>

#include "common/record/cubin_blob.h"
#include "common/record/instrumentation_blob.h"
#include "common/record/record_format.h"
#include "common/tree/tree_depth.h"
#include "shim/scopes/thread_recorder.h"

namespace protond::shim {
namespace {

using record::NameClass;

// A pointer in initial-exec TLS: one instruction to reach the thread's state even in a shared
// library, and small enough for the static TLS surplus that dlopen needs.
[[gnu::tls_model("initial-exec")]] thread_local ThreadRecorder* tl_thread = nullptr;
pthread_key_t g_thread_key;
pthread_once_t g_thread_key_once = PTHREAD_ONCE_INIT;

void DestroyThreadRecorder(void* pointer) {
  auto* thread = static_cast<ThreadRecorder*>(pointer);
  for (SlotLane& slot_lane : thread->lanes) {
    if (slot_lane.lane.valid()) slot_lane.lane.Release();
  }
  tl_thread = nullptr;
  delete thread;
}

void CreateThreadKey() { pthread_key_create(&g_thread_key, DestroyThreadRecorder); }

protond_result Fail(ThreadRecorder& t, protond_result result, std::string message) {
  t.last_error = std::move(message);
  return result;
}

// A metric type as Proton's messages name it.
const char* ClassName(uint8_t name_class) {
  switch (static_cast<NameClass>(name_class)) {
    case NameClass::kDoubleMetric:
      return "double";
    case NameClass::kInt64VectorMetric:
      return "std::vector<int64_t>";
    case NameClass::kDoubleVectorMetric:
      return "std::vector<double>";
    default:
      return "int64_t";
  }
}

template <typename Id>
void GrowTo(std::vector<bool>& bits, Id id) {
  if (id >= bits.size()) bits.resize(id + 64, false);
}

}  // namespace

ScopeClock DetectScopeClock() {
  static const ScopeClock clock = [] {
    const char* forced = std::getenv("PROTOND_SCOPE_CLOCK");
    if (forced != nullptr && std::string_view(forced) == "monotonic") return ScopeClock::kMonotonic;
    std::string why_not;
    return clock::TscIsInvariantHere(&why_not) ? ScopeClock::kTsc : ScopeClock::kMonotonic;
  }();
  return clock;
}

ThreadRecorder& CurrentThread() {
  if (tl_thread != nullptr) return *tl_thread;
  pthread_once(&g_thread_key_once, CreateThreadKey);
  tl_thread = new ThreadRecorder;
  tl_thread->tid = static_cast<uint32_t>(gettid());
  tl_thread->stack.reserve(64);
  pthread_setspecific(g_thread_key, tl_thread);
  return *tl_thread;
}

namespace {

// CurrentThread with its common case inline: the thread's recorder exists.
[[gnu::always_inline]] inline ThreadRecorder& ThisThread() {
  if (tl_thread != nullptr) [[likely]]
    return *tl_thread;
  return CurrentThread();
}

}  // namespace

const char* LastError() { return CurrentThread().last_error.c_str(); }

void SetLastError(std::string message) { CurrentThread().last_error = std::move(message); }

namespace {

// Claims the slot's lane if needed and announces the thread and session in it. On failure the
// caller's record is lost and counted (here, or by ClaimLane when no lane is free).
bool PrepareLane(ring::WritableRegion& region, uint32_t tid, SlotLane& l, uint64_t session) {
  if (!l.lane.valid()) {
    l.lane = region.ClaimLane(tid);
    if (!l.lane.valid()) return false;  // counted by ClaimLane
    l.announced = false;
    l.context_defined.clear();
    l.name_defined.clear();
  }
  if (!l.announced) {
    const record::Header begin = record::MakeThreadBegin(tid);
    if (!l.lane.TryAppend(&begin, sizeof(begin))) return l.lane.CountDropped(), false;
    l.announced = true;
    l.session = 0;
  }
  if (l.session != session) {
    const auto begin = record::MakeSessionBegin(session);
    if (!l.lane.TryAppend(&begin, sizeof(begin))) return l.lane.CountDropped(), false;
    l.session = session;
    l.told_too_deep = false;
    l.next_clock_sync = 0;
  }
  return true;
}

[[gnu::noinline]] bool AppendClockSync(SlotLane& l) {
  const clock::ClockPair pair = clock::TakeClockPair();
  const auto sync = record::MakeClockSync(pair.tsc, pair.monotonic_ns);
  if (!l.lane.TryAppend(&sync, sizeof(sync))) return false;
  l.next_clock_sync = pair.tsc + record::kClockSyncTicks;
  return true;
}

// Before a record with timestamps: a clock pair when they are from the TSC and the lane has had
// none in this session, or none for kClockSyncTicks before `latest`, the record's last
// timestamp. False when the pair did not fit.
inline bool SyncClock(SlotLane& l, uint8_t flags, uint64_t latest) {
  if ((flags & record::kTimestampTsc) == 0) return true;
  return latest < l.next_clock_sync || AppendClockSync(l);
}
inline bool SyncClock(SlotLane& l, const record::TimedRecord& timed) {
  return SyncClock(l, timed.header.flags, timed.timestamp);
}

// The session's problems say which scope name was cut: its tree shows the cut name.
bool AppendCutNotice(SlotLane& l, const ContextEntry& entry) {
  const std::string text = "scope name of " + std::to_string(entry.uncut_name_bytes) +
                           " bytes cut to its first " + std::to_string(entry.name.size()) +
                           " bytes: '" + std::string(CutName(entry.name, 40)) + "...'";
  uint8_t buffer[record::kMaxRecordBytes];
  return l.lane.TryAppend(buffer, record::EncodeNotice(text, buffer));
}

inline bool IsDefined(const SlotLane& l, uint32_t context_id) {
  return context_id == record::kRootContextId ||
         (context_id < l.context_defined.size() && l.context_defined[context_id]);
}

// Says once to the lane's session that scopes nested past kMaxTreeDepth are left out.
void NoteTooDeep(SlotLane& l) {
  if (l.told_too_deep) return;
  static const std::string text = "scopes nested deeper than " + std::to_string(kMaxTreeDepth) +
                                  " levels are left out; their records count as dropped";
  uint8_t buffer[record::kMaxRecordBytes];
  l.told_too_deep = l.lane.TryAppend(buffer, record::EncodeNotice(text, buffer));
}

// Defines `context_id` in the lane after the ancestors the lane lacks, outermost first: a lane
// claimed or a session started while the thread is deep needs them all at once. A loop, not a
// recursion, as each level writes a record of up to kMaxRecordBytes from a buffer on the stack.
// A context deeper than kMaxTreeDepth is never defined: what refers to it is dropped.
bool DefineContext(NameTable& names, ThreadRecorder& t, SlotLane& l, uint32_t context_id) {
  if (IsDefined(l, context_id)) return true;
  if (names.Context(context_id)->depth > static_cast<uint32_t>(kMaxTreeDepth)) {
    NoteTooDeep(l);
    return false;
  }
  std::vector<uint32_t>& undefined = t.undefined_contexts;
  undefined.clear();
  for (uint32_t id = context_id; !IsDefined(l, id); id = names.Context(id)->parent_id) {
    undefined.push_back(id);
  }
  uint8_t buffer[record::kMaxRecordBytes];
  for (auto id = undefined.rbegin(); id != undefined.rend(); ++id) {
    const ContextEntry* entry = names.Context(*id);
    const size_t size = record::EncodeContextDef(*id, entry->parent_id, entry->name, buffer);
    if (!l.lane.TryAppend(buffer, size)) return false;
    if (entry->uncut_name_bytes != 0 && !AppendCutNotice(l, *entry)) return false;
    GrowTo(l.context_defined, *id);
    l.context_defined[*id] = true;
  }
  return true;
}

bool DefineName(NameTable& names, SlotLane& l, uint32_t name_id, NameClass name_class) {
  GrowTo(l.name_defined, name_id);
  if (l.name_defined[name_id]) return true;
  uint8_t buffer[record::kMaxRecordBytes];
  const size_t size = record::EncodeNameDef(name_id, name_class, names.Name(name_id)->name, buffer);
  if (!l.lane.TryAppend(buffer, size)) return false;
  l.name_defined[name_id] = true;
  return true;
}

// Writes `record` into the thread's lane of `slot`, after whatever it refers to; exactly one drop
// is counted per lost record.
struct NameRef {
  uint32_t id;  // 0: none
  NameClass name_class;
};

template <typename Record>
protond_result WriteRecord(Recorder& recorder, ThreadRecorder& t, uint32_t slot, uint64_t session,
                           uint32_t context_id, std::initializer_list<NameRef> names,
                           const Record& record) {
  SlotLane& l = t.lanes[slot];
  if (!PrepareLane(*recorder.region(), t.tid, l, session)) return PROTOND_DROPPED;
  bool defined = DefineContext(recorder.names(), t, l, context_id);
  for (const NameRef& name : names) {
    defined =
        defined && (name.id == 0 || DefineName(recorder.names(), l, name.id, name.name_class));
  }
  if constexpr (std::is_same_v<Record, record::TimedRecord>) {
    defined = defined && SyncClock(l, record);
  } else if constexpr (std::is_same_v<Record, record::CollectiveRecord>) {
    defined = defined && SyncClock(l, record.header.flags, record.end);
  }
  if (!defined) {
    l.lane.CountDropped();
    return PROTOND_DROPPED;
  }
  if constexpr (std::is_same_v<Record, std::span<const uint8_t>>) {  // a record of its own size
    return l.lane.TryWrite(record.data(), record.size()) ? PROTOND_OK : PROTOND_DROPPED;
  } else {
    return l.lane.TryWrite(&record, sizeof(record)) ? PROTOND_OK : PROTOND_DROPPED;
  }
}

// Writes a record that refers to no definition, which `encode` puts into a buffer of
// kMaxRecordBytes and whose size it returns; a record that does not fit is counted as dropped.
template <typename Encode>
protond_result WriteUnreferenced(ring::WritableRegion& region, uint32_t slot, uint64_t session,
                                 Encode encode) {
  ThreadRecorder& t = CurrentThread();
  SlotLane& l = t.lanes[slot];
  if (!PrepareLane(region, t.tid, l, session)) return PROTOND_DROPPED;
  uint8_t buffer[record::kMaxRecordBytes];
  const size_t size = encode(buffer);
  return l.lane.TryWrite(buffer, size) ? PROTOND_OK : PROTOND_DROPPED;
}

// The exit of a scope or state whose enter was lost: lost with it, and counted, so that every
// record the program wrote is either stored or counted as dropped.
protond_result CountLostExit(ring::WritableRegion& region, ThreadRecorder& t, uint32_t slot,
                             uint64_t session) {
  SlotLane& l = t.lanes[slot];
  if (PrepareLane(region, t.tid, l, session)) l.lane.CountDropped();
  return PROTOND_DROPPED;
}

constexpr size_t kDefinitionRoom = 1024;

// Waits, sleeping, until `bytes` fit into the lane, at most Recorder::kGpuRoomWait; not at all on
// a lane whose last wait timed out, until room has appeared.
void WaitForRoom(SlotLane& l, size_t bytes) {
  if (!l.lane.valid() || l.lane.HasSpace(bytes)) {
    l.stalled = false;
    return;
  }
  if (l.stalled) return;
  const auto deadline = std::chrono::steady_clock::now() + Recorder::kGpuRoomWait;
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (l.lane.HasSpace(bytes)) return;
  }
  l.stalled = true;
}

// Writes `blob` in chunks into the lane, each waiting for room as GPU activity does. The rest of a
// blob that lost a chunk is useless: one drop stands for it.
protond_result WriteBlob(SlotLane& l, uint32_t blob_id, record::BlobClass blob_class,
                         std::string_view blob) {
  const auto total = static_cast<uint32_t>(blob.size());
  uint8_t chunk[record::kMaxRecordBytes];
  for (uint32_t offset = 0; offset < total; offset += record::kMaxBlobChunkBytes) {
    const std::string_view bytes = blob.substr(offset, record::kMaxBlobChunkBytes);
    const size_t size = record::EncodeBlobChunk(blob_id, blob_class, total, offset, bytes, chunk);
    WaitForRoom(l, size);
    if (!l.lane.TryWrite(chunk, size)) return PROTOND_DROPPED;
  }
  return PROTOND_OK;
}

// Results of one record written for several sessions: OK beats INACTIVE (a session the record
// was not for), and the first failure beats both.
protond_result Combine(protond_result so_far, protond_result next) {
  if (next == PROTOND_INACTIVE) return so_far;
  if (so_far == PROTOND_INACTIVE || so_far == PROTOND_OK) return next;
  return so_far;
}

// Whether the caller's `name` is `interned` (a name CutName gave): compared in place, stopping at
// the first difference, without measuring `name` first and without reading past its end. The
// common case, a short name, is a few inline byte compares (the hot path's name checks cost more
// than the rest of an idle pair with strlen and memcmp).
[[gnu::always_inline]] inline bool SameName(const std::string& interned, const char* name) {
  const size_t size = interned.size();
  // A name this long may have been cut: compare it cut the same way.
  if (size + 4 > record::kMaxNameBytes) [[unlikely]]
    return interned == CutName(name);
  const char* expected = interned.data();
  if (size > 32) return std::strncmp(name, expected, size) == 0 && name[size] == '\0';
  for (size_t i = 0; i < size; ++i) {
    if (name[i] != expected[i]) return false;  // also where `name` ends early
  }
  return name[size] == '\0';
}

[[gnu::noinline]] void FillContextCache(ContextCacheEntry& entry, NameTable& names,
                                        uint32_t parent_id, const char* name, bool launch_frame) {
  entry.context_id = names.InternContext(parent_id, name, launch_frame);
  entry.parent_id = parent_id;
  entry.launch_frame = launch_frame;
  entry.key_pointer = name;
  entry.name = &names.Context(entry.context_id)->name;
}

[[gnu::always_inline]] inline const ContextCacheEntry& LookupContext(NameTable& names,
                                                                     ThreadRecorder& t,
                                                                     uint32_t parent_id,
                                                                     const char* name,
                                                                     bool launch_frame = false) {
  const auto key = reinterpret_cast<uintptr_t>(name);
  ContextCacheEntry& entry =
      t.cache[((key >> 3) ^ (parent_id * 0x9e3779b1u) ^ launch_frame) % ThreadRecorder::kCacheSize];
  // The pointer alone could be a reused buffer with new contents, so the content decides.
  if (entry.key_pointer != name || entry.parent_id != parent_id ||
      entry.launch_frame != launch_frame || !SameName(*entry.name, name)) [[unlikely]] {
    FillContextCache(entry, names, parent_id, name, launch_frame);
  }
  return entry;
}

const NameCacheEntry& LookupName(NameTable& names, ThreadRecorder& t, const char* name,
                                 NameClass name_class) {
  const auto key = reinterpret_cast<uintptr_t>(name);
  NameCacheEntry& entry = t.name_cache[(key >> 3) % ThreadRecorder::kNameCacheSize];
  if (entry.key_pointer == name && entry.name_class == static_cast<uint8_t>(name_class) &&
      SameName(*entry.name, name)) {
    return entry;
  }
  NameClass first_class;
  entry.name_id = names.InternName(name, name_class, &first_class);
  entry.key_pointer = name;
  entry.name_class = static_cast<uint8_t>(name_class);
  entry.first_class = static_cast<uint8_t>(first_class);
  entry.name = &names.Name(entry.name_id)->name;
  return entry;
}

bool IsValidName(const char* name) { return name != nullptr && name[0] != '\0'; }

}  // namespace

bool Recorder::StartRecording(uint64_t session_id) {
  // A session still stopping keeps its slot: starting it again before it finished would give it
  // two, and each delivery would be written twice.
  if (session_id == 0 || disabled() || SlotOf(session_id) != kMaxSessions) return false;
  for (std::atomic<uint64_t>& slot : slots_) {
    if (slot.load(std::memory_order_acquire) == 0) {
      const uint32_t bit = 1u << (&slot - slots_.data());
      slot.store(session_id, std::memory_order_release);
      delivery_mask_.fetch_or(bit, std::memory_order_release);
      slot_mask_.fetch_or(bit, std::memory_order_release);
      PublishRecordingSet();
      return true;
    }
  }
  return false;
}

bool Recorder::StopRecording(uint64_t session_id) {
  if (!IsRecording(session_id)) return false;
  slot_mask_.fetch_and(~(1u << SlotOf(session_id)), std::memory_order_release);
  PublishRecordingSet();
  return true;
}

bool Recorder::FinishStopping(uint64_t session_id) {
  const uint32_t slot = SlotOf(session_id);
  if (slot == kMaxSessions || IsRecording(session_id)) return false;
  delivery_mask_.fetch_and(~(1u << slot), std::memory_order_release);
  slots_[slot].store(0, std::memory_order_release);
  return true;
}

uint32_t Recorder::SlotOf(uint64_t session_id) const {
  for (uint32_t slot = 0; slot < kMaxSessions; ++slot) {
    if (session_id != 0 && slots_[slot].load(std::memory_order_acquire) == session_id) return slot;
  }
  return kMaxSessions;
}

bool Recorder::IsRecording(uint64_t session_id) const {
  const uint32_t slot = SlotOf(session_id);
  return slot != kMaxSessions && (slot_mask_.load(std::memory_order_acquire) & (1u << slot)) != 0;
}

bool Recorder::recording() const { return slot_mask_.load(std::memory_order_acquire) != 0; }

std::vector<uint64_t> Recorder::RecordingSessions() const {
  std::vector<uint64_t> sessions;
  const uint32_t recording = slot_mask_.load(std::memory_order_acquire);
  for (uint32_t slot = 0; slot < kMaxSessions; ++slot) {
    const uint64_t session = slots_[slot].load(std::memory_order_acquire);
    if ((recording & (1u << slot)) != 0 && session != 0) sessions.push_back(session);
  }
  return sessions;
}

void Recorder::DisableForever() {
  disabled_.store(true, std::memory_order_release);
  slot_mask_.store(0, std::memory_order_release);
  delivery_mask_.store(0, std::memory_order_release);
  for (std::atomic<uint64_t>& slot : slots_) slot.store(0, std::memory_order_release);
}

void Recorder::PublishRecordingSet() {
  const uint32_t number = recording_set_.load(std::memory_order_relaxed) + 1;
  NumberedSet& set = recording_sets_[number % kRecordingSets];
  set.number.store(kUnknownRecordingSet, std::memory_order_release);
  const uint32_t recording = slot_mask_.load(std::memory_order_acquire);
  for (uint32_t slot = 0; slot < kMaxSessions; ++slot) {
    const bool records = (recording & (1u << slot)) != 0;
    set.sessions[slot].store(records ? slots_[slot].load(std::memory_order_acquire) : 0,
                             std::memory_order_release);
  }
  set.number.store(number, std::memory_order_release);
  recording_set_.store(number, std::memory_order_release);
}

bool Recorder::SessionsOf(uint32_t number, SessionsBySlot* sessions) const {
  const NumberedSet& set = recording_sets_[number % kRecordingSets];
  const uint32_t before = set.number.load(std::memory_order_acquire);
  for (uint32_t slot = 0; slot < kMaxSessions; ++slot) {
    (*sessions)[slot] = set.sessions[slot].load(std::memory_order_acquire);
  }
  const uint32_t after = set.number.load(std::memory_order_acquire);
  return before == after && before != kUnknownRecordingSet &&
         (before & 0xffff) == (number & 0xffff);
}

template <typename Write>
protond_result Recorder::ForEachSession(const std::atomic<uint32_t>& slots, Write write) {
  protond_result result = PROTOND_INACTIVE;
  for (uint32_t mask = slots.load(std::memory_order_acquire); mask != 0; mask &= mask - 1) {
    const auto slot = static_cast<uint32_t>(std::countr_zero(mask));
    // The slot may have been freed since the mask was read.
    const uint64_t session = slots_[slot].load(std::memory_order_acquire);
    if (session != 0) result = Combine(result, write(slot, session));
  }
  return result;
}

uint32_t Recorder::GpuWorkScope(const ThreadRecorder& t) const {
  if (!t.stack.empty() || t.tid == main_tid_) return InnermostScope(t);
  return main_context_.load(std::memory_order_relaxed);
}

uint32_t Recorder::CurrentContextOf(const ThreadRecorder& t) const {
  return t.launch_context != 0 ? t.launch_context : InnermostScope(t);
}

uint32_t Recorder::ProvidedContext(ThreadRecorder& t, bool in_api_call) {
  const protond_context_provider provider = provider_.load(std::memory_order_acquire);
  if (provider == nullptr) return PROTOND_NO_CONTEXT;
  if (!in_api_call) return provider();
  // A runtime call reaches the tracer twice (runtime, then the driver call inside it): ask once.
  if (t.provided_context == kNoProvidedContext) t.provided_context = provider();
  return t.provided_context;
}

uint32_t Recorder::LaunchParent(ThreadRecorder& t, bool in_api_call) {
  const uint32_t context = ProvidedContext(t, in_api_call);
  if (context != PROTOND_NO_CONTEXT && names_.IsContext(context)) return context;
  return GpuWorkScope(t);
}

void Recorder::SetContextProvider(protond_context_provider provider) {
  provider_.store(provider, std::memory_order_release);
}

protond_result Recorder::EnterScope(const char* name) {
  ThreadRecorder& t = ThisThread();
  if (!IsValidName(name)) return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, "scope name is empty");
  const ContextCacheEntry& context = LookupContext(names_, t, InnermostScope(t), name);
  // Built in place: a copy from a local, written piecewise, stalls on store forwarding.
  OpenScope& scope = t.stack.emplace_back(context.context_id, context.name);
  const protond_result result =
      slot_mask_.load(std::memory_order_acquire) == 0 ? PROTOND_INACTIVE : WriteEnter(t, scope);
  PublishIfMain(t);
  return result;
}

[[gnu::noinline]] protond_result Recorder::WriteEnter(ThreadRecorder& t, OpenScope& scope) {
  const uint32_t context_id = scope.context_id;
  uint64_t now = 0;
  return ForEachSession(slot_mask_, [&](uint32_t slot, uint64_t session) {
    if (now == 0) now = Now();
    const auto enter =
        record::MakeTimed(record::Kind::kScopeEnter, context_id, now, TimestampFlags());
    SlotLane& l = t.lanes[slot];
    protond_result written;
    // A lane announced in this session that has defined the context needs nothing else first.
    if (l.session == session && IsDefined(l, context_id)) [[likely]] {
      written = !SyncClock(l, enter)                     ? (l.lane.CountDropped(), PROTOND_DROPPED)
                : l.lane.TryWrite(&enter, sizeof(enter)) ? PROTOND_OK
                                                         : PROTOND_DROPPED;
    } else {
      written = WriteRecord(*this, t, slot, session, context_id, {}, enter);
    }
    if (written == PROTOND_OK) scope.SetRecorded(slot, session);
    if (written == PROTOND_DROPPED) scope.SetDropped(slot, session);
    return written;
  });
}

protond_result Recorder::ExitScope(const char* name) {
  ThreadRecorder& t = ThisThread();
  if (t.stack.empty()) return Fail(t, PROTOND_ERR_NO_SCOPE, "no scope is open on this thread");
  // Read in place, and popped once its records are written (which never touch the stack).
  const OpenScope& top = t.stack.back();
  // The enter interned the name cut (CutName): the exit compares it cut the same way.
  if (name != nullptr && !SameName(*top.name, name)) {
    return Fail(t, PROTOND_ERR_SCOPE_MISMATCH,
                "Scope name mismatch: exiting '" + std::string(name) +
                    "' but the innermost scope is '" + *top.name + "'");
  }
  // An enter written for no session has no exit to write either.
  const protond_result result =
      (top.recorded_slots | top.dropped_slots) == 0 ? PROTOND_INACTIVE : WriteExit(t, top);
  t.stack.pop_back();
  PublishIfMain(t);
  return result;
}

[[gnu::noinline]] protond_result Recorder::WriteExit(ThreadRecorder& t, const OpenScope& top) {
  uint64_t now = 0;
  return ForEachSession(slot_mask_, [&](uint32_t slot, uint64_t session) {
    if (top.DroppedIn(slot, session)) return CountLostExit(*region_, t, slot, session);
    if (!top.RecordedIn(slot, session)) return PROTOND_INACTIVE;
    if (now == 0) now = Now();
    const auto exit =
        record::MakeTimed(record::Kind::kScopeExit, top.context_id, now, TimestampFlags());
    // The enter went into this lane in this session, so the context is defined and the session
    // announced (unless the lane moved on to another session in between): write directly.
    SlotLane& l = t.lanes[slot];
    if (l.session == session) [[likely]] {
      if (!SyncClock(l, exit)) return l.lane.CountDropped(), PROTOND_DROPPED;
      return l.lane.TryWrite(&exit, sizeof(exit)) ? PROTOND_OK : PROTOND_DROPPED;
    }
    return WriteRecord(*this, t, slot, session, top.context_id, {}, exit);
  });
}

protond_result Recorder::AddInt64Metric(const char* name, int64_t value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return AddMetric(name, NameClass::kInt64Metric, bits);
}

protond_result Recorder::AddDoubleMetric(const char* name, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return AddMetric(name, NameClass::kDoubleMetric, bits);
}

namespace {

// Proton's message for a metric name given with another type than its first.
protond_result FailTypeMismatch(ThreadRecorder& t, const NameCacheEntry& entry, const char* name,
                                NameClass type) {
  return Fail(t, PROTOND_ERR_METRIC_TYPE,
              "Metric value type mismatch for valueId " + std::to_string(entry.name_id) + " (" +
                  name + "): current=" + ClassName(entry.first_class) +
                  ", new=" + ClassName(static_cast<uint8_t>(type)));
}

}  // namespace

protond_result Recorder::AddMetric(const char* name, NameClass type, uint64_t value_bits) {
  ThreadRecorder& t = ThisThread();
  if (!IsValidName(name)) return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, "metric name is empty");
  if (!recording()) return PROTOND_INACTIVE;
  const NameCacheEntry& entry = LookupName(names_, t, name, type);
  if (entry.first_class != static_cast<uint8_t>(type))
    return FailTypeMismatch(t, entry, name, type);
  const uint32_t context_id = CurrentContextOf(t);
  const auto metric = record::MakeMetric(context_id, entry.name_id, type, value_bits);
  return ForEachSession(slot_mask_, [&](uint32_t slot, uint64_t session) {
    return WriteRecord(*this, t, slot, session, context_id, {{entry.name_id, type}}, metric);
  });
}

protond_result Recorder::AddVectorMetric(const char* name, NameClass type, const void* values,
                                         size_t count) {
  ThreadRecorder& t = ThisThread();
  if (!IsValidName(name)) return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, "metric name is empty");
  if (values == nullptr || count == 0 || count > record::kMaxVectorMetricElements) {
    return Fail(t, PROTOND_ERR_INVALID_ARGUMENT,
                "vector metric '" + std::string(CutName(name, 80)) + "' has " +
                    std::to_string(count) + " elements; it needs 1 to " +
                    std::to_string(record::kMaxVectorMetricElements));
  }
  if (!recording()) return PROTOND_INACTIVE;
  const NameCacheEntry& entry = LookupName(names_, t, name, type);
  if (entry.first_class != static_cast<uint8_t>(type))
    return FailTypeMismatch(t, entry, name, type);
  const auto elements = static_cast<uint32_t>(count);
  const uint32_t first_count = names_.FirstVectorCount(entry.name_id, elements);
  if (first_count != elements) {  // Proton's words for a device metric of another size
    return Fail(t, PROTOND_ERR_METRIC_TYPE,
                "size mismatch for metric " + std::string(name) + ": current=" +
                    std::to_string(first_count) + ", new=" + std::to_string(elements));
  }
  const uint32_t context_id = CurrentContextOf(t);
  uint8_t buffer[record::kMaxRecordBytes];
  const size_t size =
      record::EncodeVectorMetric(context_id, entry.name_id, type, values, elements, buffer);
  return ForEachSession(slot_mask_, [&](uint32_t slot, uint64_t session) {
    return WriteRecord(*this, t, slot, session, context_id, {{entry.name_id, type}},
                       std::span<const uint8_t>(buffer, size));
  });
}

protond_result Recorder::EnterState(const char* name) {
  ThreadRecorder& t = ThisThread();
  if (!IsValidName(name)) return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, "state name is empty");
  const NameCacheEntry& entry = LookupName(names_, t, name, NameClass::kState);
  t.state_name_id = entry.name_id;
  t.state_recorded_in = {};
  t.state_dropped_in = {};
  uint64_t now = 0;
  return ForEachSession(slot_mask_, [&](uint32_t slot, uint64_t session) {
    if (now == 0) now = Now();
    const protond_result written = WriteRecord(
        *this, t, slot, session, record::kRootContextId, {{entry.name_id, NameClass::kState}},
        record::MakeTimed(record::Kind::kStateEnter, entry.name_id, now, TimestampFlags()));
    if (written == PROTOND_OK) t.state_recorded_in[slot] = session;
    if (written == PROTOND_DROPPED) t.state_dropped_in[slot] = session;
    return written;
  });
}

protond_result Recorder::EnterLaunch(const char* name) {
  ThreadRecorder& t = ThisThread();
  if (!IsValidName(name)) return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, "kernel name is empty");
  // Nothing is written: the frame reaches the daemon as the context of what lands on it.
  t.launch_context =
      LookupContext(names_, t, LaunchParent(t, /*in_api_call=*/false), name, true).context_id;
  return recording() ? PROTOND_OK : PROTOND_INACTIVE;
}

protond_result Recorder::ExitLaunch() {
  ThreadRecorder& t = ThisThread();
  if (t.launch_context == 0) {
    return Fail(t, PROTOND_ERR_NO_SCOPE, "no kernel launch is open on this thread");
  }
  t.launch_context = 0;
  return recording() ? PROTOND_OK : PROTOND_INACTIVE;
}

void Recorder::ApiCallReturned(bool kernel_launch) {
  ThreadRecorder& t = ThisThread();
  t.provided_context = kNoProvidedContext;
  if (kernel_launch) t.launch_context = 0;
}

uint32_t Recorder::CurrentContext() {
  ThreadRecorder& t = ThisThread();
  return t.launch_context != 0 ? t.launch_context : LaunchParent(t, /*in_api_call=*/true);
}

record::CollectiveRecord Recorder::BeginCollective() {
  ThreadRecorder& t = ThisThread();
  const uint32_t context =
      t.launch_context != 0 ? t.launch_context : LaunchParent(t, /*in_api_call=*/false);
  record::CollectiveRecord collective = record::MakeCollective(context, TimestampFlags());
  collective.start = Now();
  return collective;
}

protond_result Recorder::EndCollective(record::CollectiveRecord& collective) {
  collective.end = Now();
  ThreadRecorder& t = ThisThread();
  return ForEachSession(slot_mask_, [&](uint32_t slot, uint64_t session) {
    return WriteRecord(*this, t, slot, session, collective.header.aux, {}, collective);
  });
}

protond_result Recorder::WriteGpuActivity(const record::GpuActivityRecord& activity,
                                          uint32_t recording_set) {
  if (delivery_mask_.load(std::memory_order_acquire) == 0) return PROTOND_INACTIVE;
  SessionsBySlot launched_in;
  const bool known =
      recording_set != kUnknownRecordingSet && SessionsOf(recording_set, &launched_in);
  ThreadRecorder& t = ThisThread();
  return ForEachSession(delivery_mask_, [&](uint32_t slot, uint64_t session) {
    if (known && std::find(launched_in.begin(), launched_in.end(), session) == launched_in.end()) {
      return PROTOND_INACTIVE;  // the session did not record when the work was launched
    }
    // Room for the record and the (usually short) definitions it may need first.
    WaitForRoom(t.lanes[slot], sizeof(activity) + kDefinitionRoom);
    return WriteRecord(*this, t, slot, session, activity.header.aux,
                       {{activity.name_id, NameClass::kKernel}}, activity);
  });
}

protond_result Recorder::WritePcSample(const record::PcSampleRecord& sample) {
  ThreadRecorder& t = ThisThread();
  return ForEachSession(delivery_mask_, [&](uint32_t slot, uint64_t session) {
    WaitForRoom(t.lanes[slot], sizeof(sample) + 3 * kDefinitionRoom);
    return WriteRecord(*this, t, slot, session, sample.header.aux,
                       {{sample.kernel_name_id, NameClass::kKernel},
                        {sample.line_name_id, NameClass::kSourceLine},
                        {sample.reason_name_id, NameClass::kStallReason}},
                       sample);
  });
}

protond_result Recorder::WriteInstrumentationBuffer(const char* kernel_name,
                                                    record::InstrumentationBufferHeader header,
                                                    std::span<const uint32_t> profiled_warps,
                                                    std::span<const std::string_view> scope_names,
                                                    std::span<const uint8_t> buffer) {
  ThreadRecorder& t = ThisThread();
  if (!IsValidName(kernel_name)) {
    return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, "kernel name is empty");
  }
  // Checked whether or not a session records, as the kernel's name: a wrong call shows at once.
  if (absl::Status checked =
          record::CheckInstrumentationBuffer(header, profiled_warps, scope_names, buffer.size());
      !checked.ok()) {
    return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, std::string(checked.message()));
  }
  if (!recording()) return PROTOND_INACTIVE;
  header.context_id = CurrentContextOf(t);
  header.kernel_name_id = LookupName(names_, t, kernel_name, NameClass::kKernel).name_id;
  absl::StatusOr<std::string> blob =
      record::EncodeInstrumentationBlob(header, profiled_warps, scope_names, buffer);
  if (!blob.ok()) {
    return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, std::string(blob.status().message()));
  }
  const uint32_t blob_id = next_blob_id_.fetch_add(1, std::memory_order_relaxed);
  return ForEachSession(slot_mask_, [&](uint32_t slot, uint64_t session) {
    SlotLane& l = t.lanes[slot];
    if (!PrepareLane(*region_, t.tid, l, session)) return PROTOND_DROPPED;
    if (!DefineContext(names_, t, l, header.context_id) ||
        !DefineName(names_, l, header.kernel_name_id, NameClass::kKernel)) {
      l.lane.CountDropped();
      return PROTOND_DROPPED;
    }
    return WriteBlob(l, blob_id, record::BlobClass::kInstrumentationBuffer, *blob);
  });
}

protond_result Recorder::WriteCubin(uint64_t crc, std::span<const uint8_t> cubin) {
  ThreadRecorder& t = ThisThread();
  if (delivery_mask_.load(std::memory_order_acquire) == 0) return PROTOND_INACTIVE;
  absl::StatusOr<std::string> blob = record::EncodeCubinBlob(crc, cubin);
  if (!blob.ok()) {
    return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, std::string(blob.status().message()));
  }
  const uint32_t blob_id = next_blob_id_.fetch_add(1, std::memory_order_relaxed);
  return ForEachSession(delivery_mask_, [&](uint32_t slot, uint64_t session) {
    SlotLane& l = t.lanes[slot];
    if (!PrepareLane(*region_, t.tid, l, session)) return PROTOND_DROPPED;
    return WriteBlob(l, blob_id, record::BlobClass::kCubin, *blob);
  });
}

protond_result Recorder::WriteNotice(std::string_view text) {
  return ForEachSession(delivery_mask_, [&](uint32_t slot, uint64_t session) {
    return WriteUnreferenced(*region_, slot, session, [text](uint8_t* out) {
      return record::EncodeNotice(text.substr(0, record::kMaxNameBytes), out);
    });
  });
}

protond_result Recorder::WriteDeviceInfo(uint32_t device_id, const record::DeviceInfoRecord& device,
                                         std::string_view name) {
  return ForEachSession(delivery_mask_, [&](uint32_t slot, uint64_t session) {
    return WriteUnreferenced(*region_, slot, session, [&](uint8_t* out) {
      return record::EncodeDeviceInfo(device_id, device, name.substr(0, record::kMaxNameBytes),
                                      out);
    });
  });
}

void Recorder::CountDropped(uint64_t count) {
  // What was lost would have gone to every recording session.
  ForEachSession(delivery_mask_, [&](uint32_t slot, uint64_t session) {
    ThreadRecorder& t = ThisThread();
    if (!PrepareLane(*region_, t.tid, t.lanes[slot], session)) return PROTOND_DROPPED;
    t.lanes[slot].lane.CountDropped(count);
    return PROTOND_OK;
  });
}

protond_result Recorder::ExitState() {
  ThreadRecorder& t = ThisThread();
  if (t.state_name_id == 0) return Fail(t, PROTOND_ERR_NO_SCOPE, "no state is set on this thread");
  const uint32_t name_id = t.state_name_id;
  const SessionsBySlot recorded_in = t.state_recorded_in;
  const SessionsBySlot dropped_in = t.state_dropped_in;
  t.state_name_id = 0;
  uint64_t now = 0;
  return ForEachSession(slot_mask_, [&](uint32_t slot, uint64_t session) {
    if (dropped_in[slot] == session) return CountLostExit(*region_, t, slot, session);
    if (recorded_in[slot] != session) return PROTOND_INACTIVE;
    if (now == 0) now = Now();
    return WriteRecord(*this, t, slot, session, record::kRootContextId,
                       {{name_id, NameClass::kState}},
                       record::MakeTimed(record::Kind::kStateExit, name_id, now, TimestampFlags()));
  });
}

}  // namespace protond::shim
