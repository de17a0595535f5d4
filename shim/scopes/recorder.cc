#include "shim/scopes/recorder.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "common/record/record_format.h"
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
  if (thread->lane.valid()) thread->lane.Release();
  tl_thread = nullptr;
  delete thread;
}

void CreateThreadKey() { pthread_key_create(&g_thread_key, DestroyThreadRecorder); }

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

protond_result Fail(ThreadRecorder& t, protond_result result, std::string message) {
  t.last_error = std::move(message);
  return result;
}

const char* ClassName(uint8_t name_class) {
  return name_class == static_cast<uint8_t>(NameClass::kDoubleMetric) ? "double" : "int64_t";
}

template <typename Id>
void GrowTo(std::vector<bool>& bits, Id id) {
  if (id >= bits.size()) bits.resize(id + 64, false);
}

}  // namespace

ThreadRecorder& CurrentThread() {
  if (tl_thread != nullptr) return *tl_thread;
  pthread_once(&g_thread_key_once, CreateThreadKey);
  tl_thread = new ThreadRecorder;
  tl_thread->tid = static_cast<uint32_t>(gettid());
  tl_thread->stack.reserve(64);
  pthread_setspecific(g_thread_key, tl_thread);
  return *tl_thread;
}

const char* LastError() { return CurrentThread().last_error.c_str(); }

void SetLastError(std::string message) { CurrentThread().last_error = std::move(message); }

namespace {

// Claims a lane if needed and announces the thread and session in it. On failure the caller's
// record is lost; the failing write already counted itself, the caller's record is counted here.
bool PrepareLane(ring::WritableRegion& region, ThreadRecorder& t, uint64_t session) {
  if (!t.lane.valid()) {
    t.lane = region.ClaimLane(t.tid);
    if (!t.lane.valid()) return false;  // counted by ClaimLane
    t.lane_announced = false;
    t.context_defined.clear();
    t.name_defined.clear();
  }
  if (!t.lane_announced) {
    const record::Header begin = record::MakeThreadBegin(t.tid);
    if (!t.lane.TryWrite(&begin, sizeof(begin))) return t.lane.CountDropped(), false;
    t.lane_announced = true;
    t.lane_session = 0;
  }
  if (t.lane_session != session) {
    const auto begin = record::MakeSessionBegin(session);
    if (!t.lane.TryWrite(&begin, sizeof(begin))) return t.lane.CountDropped(), false;
    t.lane_session = session;
  }
  return true;
}

bool DefineContext(NameTable& names, ThreadRecorder& t, uint32_t context_id) {
  if (context_id == record::kRootContextId) return true;
  GrowTo(t.context_defined, context_id);
  if (t.context_defined[context_id]) return true;
  const ContextEntry* entry = names.Context(context_id);
  if (!DefineContext(names, t, entry->parent_id)) return false;
  uint8_t buffer[record::kMaxRecordBytes];
  const size_t size = record::EncodeContextDef(context_id, entry->parent_id, entry->name, buffer);
  if (!t.lane.TryWrite(buffer, size)) return false;
  t.context_defined[context_id] = true;
  return true;
}

bool DefineName(NameTable& names, ThreadRecorder& t, uint32_t name_id, NameClass name_class) {
  GrowTo(t.name_defined, name_id);
  if (t.name_defined[name_id]) return true;
  uint8_t buffer[record::kMaxRecordBytes];
  const size_t size = record::EncodeNameDef(name_id, name_class, names.Name(name_id)->name, buffer);
  if (!t.lane.TryWrite(buffer, size)) return false;
  t.name_defined[name_id] = true;
  return true;
}

// Writes `record` after whatever it refers to; exactly one drop is counted per lost record.
template <typename Record>
protond_result WriteRecord(Recorder& recorder, ThreadRecorder& t, uint64_t session,
                           uint32_t context_id, uint32_t name_id, NameClass name_class,
                           const Record& record) {
  if (!PrepareLane(*recorder.region(), t, session)) return PROTOND_DROPPED;
  const bool defined = DefineContext(recorder.names(), t, context_id) &&
                       (name_id == 0 || DefineName(recorder.names(), t, name_id, name_class));
  if (!defined) {
    t.lane.CountDropped();
    return PROTOND_DROPPED;
  }
  return t.lane.TryWrite(&record, sizeof(record)) ? PROTOND_OK : PROTOND_DROPPED;
}

// Writes a record that refers to no definition, which `encode` puts into a buffer of
// kMaxRecordBytes and whose size it returns; a record that does not fit is counted as dropped.
template <typename Encode>
protond_result WriteUnreferenced(ring::WritableRegion& region, uint64_t session, Encode encode) {
  if (session == 0) return PROTOND_INACTIVE;
  ThreadRecorder& t = CurrentThread();
  if (!PrepareLane(region, t, session)) return PROTOND_DROPPED;
  uint8_t buffer[record::kMaxRecordBytes];
  const size_t size = encode(buffer);
  return t.lane.TryWrite(buffer, size) ? PROTOND_OK : PROTOND_DROPPED;
}

const ContextCacheEntry& LookupContext(NameTable& names, ThreadRecorder& t, uint32_t parent_id,
                                       const char* name, bool launch_frame = false) {
  const auto key = reinterpret_cast<uintptr_t>(name);
  ContextCacheEntry& entry =
      t.cache[((key >> 3) ^ (parent_id * 0x9e3779b1u) ^ launch_frame) % ThreadRecorder::kCacheSize];
  // The pointer alone could be a reused buffer with new contents, so the content decides.
  if (entry.key_pointer == name && entry.parent_id == parent_id &&
      entry.launch_frame == launch_frame && std::strcmp(entry.name->c_str(), name) == 0) {
    return entry;
  }
  entry.context_id = names.InternContext(parent_id, name, launch_frame);
  entry.parent_id = parent_id;
  entry.launch_frame = launch_frame;
  entry.key_pointer = name;
  entry.name = &names.Context(entry.context_id)->name;
  return entry;
}

const NameCacheEntry& LookupName(NameTable& names, ThreadRecorder& t, const char* name,
                                 NameClass name_class) {
  const auto key = reinterpret_cast<uintptr_t>(name);
  NameCacheEntry& entry = t.name_cache[(key >> 3) % ThreadRecorder::kNameCacheSize];
  if (entry.key_pointer == name && entry.name_class == static_cast<uint8_t>(name_class) &&
      std::strcmp(entry.name->c_str(), name) == 0) {
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

uint32_t Recorder::InnermostScope(const ThreadRecorder& t) const {
  return t.stack.empty() ? record::kRootContextId : t.stack.back().context_id;
}

uint32_t Recorder::GpuWorkScope(const ThreadRecorder& t) const {
  if (!t.stack.empty() || t.tid == main_tid_) return InnermostScope(t);
  return main_context_.load(std::memory_order_relaxed);
}

uint32_t Recorder::CurrentContextOf(const ThreadRecorder& t) const {
  return t.launch_context != 0 ? t.launch_context : InnermostScope(t);
}

uint32_t Recorder::LaunchParent(const ThreadRecorder& t) {
  const protond_context_provider provider = provider_.load(std::memory_order_acquire);
  if (provider != nullptr) {
    const uint32_t context = provider();
    if (context != PROTOND_NO_CONTEXT && names_.IsContext(context)) return context;
  }
  return GpuWorkScope(t);
}

void Recorder::SetContextProvider(protond_context_provider provider) {
  provider_.store(provider, std::memory_order_release);
}

void Recorder::PublishIfMain(const ThreadRecorder& t) {
  if (t.tid == main_tid_) main_context_.store(InnermostScope(t), std::memory_order_relaxed);
}

protond_result Recorder::EnterScope(const char* name) {
  ThreadRecorder& t = CurrentThread();
  if (!IsValidName(name)) return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, "scope name is empty");
  const ContextCacheEntry& context = LookupContext(names_, t, InnermostScope(t), name);
  const uint64_t session = session_id();
  protond_result result = PROTOND_INACTIVE;
  if (session != 0) {
    result = WriteRecord(*this, t, session, context.context_id, 0, NameClass::kState,
                         record::MakeTimed(record::Kind::kScopeEnter, context.context_id, NowNs()));
  }
  t.stack.push_back({context.context_id, context.name, result == PROTOND_OK ? session : 0});
  PublishIfMain(t);
  return result;
}

protond_result Recorder::ExitScope(const char* name) {
  ThreadRecorder& t = CurrentThread();
  if (t.stack.empty()) return Fail(t, PROTOND_ERR_NO_SCOPE, "no scope is open on this thread");
  const OpenScope top = t.stack.back();
  if (name != nullptr && *top.name != name) {
    return Fail(t, PROTOND_ERR_SCOPE_MISMATCH,
                "Scope name mismatch: exiting '" + std::string(name) +
                    "' but the innermost scope is '" + *top.name + "'");
  }
  t.stack.pop_back();
  PublishIfMain(t);
  const uint64_t session = session_id();
  if (session == 0 || top.recorded_in_session != session) return PROTOND_INACTIVE;
  const auto exit = record::MakeTimed(record::Kind::kScopeExit, top.context_id, NowNs());
  // The enter went into this lane in this session, so the context is defined and the session
  // announced (unless the lane moved on to another session in between): write directly.
  if (t.lane_session == session) {
    return t.lane.TryWrite(&exit, sizeof(exit)) ? PROTOND_OK : PROTOND_DROPPED;
  }
  return WriteRecord(*this, t, session, top.context_id, 0, NameClass::kState, exit);
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

protond_result Recorder::AddMetric(const char* name, NameClass type, uint64_t value_bits) {
  ThreadRecorder& t = CurrentThread();
  if (!IsValidName(name)) return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, "metric name is empty");
  const uint64_t session = session_id();
  if (session == 0) return PROTOND_INACTIVE;
  const NameCacheEntry& entry = LookupName(names_, t, name, type);
  if (entry.first_class != static_cast<uint8_t>(type)) {
    return Fail(t, PROTOND_ERR_METRIC_TYPE,
                "Metric value type mismatch for valueId " + std::to_string(entry.name_id) + " (" +
                    name + "): current=" + ClassName(entry.first_class) +
                    ", new=" + ClassName(static_cast<uint8_t>(type)));
  }
  const uint32_t context_id = CurrentContextOf(t);
  return WriteRecord(*this, t, session, context_id, entry.name_id, type,
                     record::MakeMetric(context_id, entry.name_id, type, value_bits));
}

protond_result Recorder::EnterState(const char* name) {
  ThreadRecorder& t = CurrentThread();
  if (!IsValidName(name)) return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, "state name is empty");
  const NameCacheEntry& entry = LookupName(names_, t, name, NameClass::kState);
  t.state_name_id = entry.name_id;
  t.state_recorded_in_session = 0;
  const uint64_t session = session_id();
  if (session == 0) return PROTOND_INACTIVE;
  const protond_result result =
      WriteRecord(*this, t, session, record::kRootContextId, entry.name_id, NameClass::kState,
                  record::MakeTimed(record::Kind::kStateEnter, entry.name_id, NowNs()));
  if (result == PROTOND_OK) t.state_recorded_in_session = session;
  return result;
}

protond_result Recorder::EnterLaunch(const char* name) {
  ThreadRecorder& t = CurrentThread();
  if (!IsValidName(name)) return Fail(t, PROTOND_ERR_INVALID_ARGUMENT, "kernel name is empty");
  // Nothing is written: the frame reaches the daemon as the context of what lands on it.
  t.launch_context = LookupContext(names_, t, LaunchParent(t), name, true).context_id;
  return session_id() != 0 ? PROTOND_OK : PROTOND_INACTIVE;
}

protond_result Recorder::ExitLaunch() {
  ThreadRecorder& t = CurrentThread();
  if (t.launch_context == 0) {
    return Fail(t, PROTOND_ERR_NO_SCOPE, "no kernel launch is open on this thread");
  }
  EndLaunch();
  return session_id() != 0 ? PROTOND_OK : PROTOND_INACTIVE;
}

void Recorder::EndLaunch() { CurrentThread().launch_context = 0; }

uint32_t Recorder::CurrentContext() {
  const ThreadRecorder& t = CurrentThread();
  return t.launch_context != 0 ? t.launch_context : LaunchParent(t);
}

protond_result Recorder::WriteGpuActivity(const record::GpuActivityRecord& activity) {
  const uint64_t session = session_id();
  if (session == 0) return PROTOND_INACTIVE;
  return WriteRecord(*this, CurrentThread(), session, activity.header.aux, activity.name_id,
                     NameClass::kKernel, activity);
}

protond_result Recorder::WriteNotice(std::string_view text) {
  return WriteUnreferenced(*region_, session_id(), [text](uint8_t* out) {
    return record::EncodeNotice(text.substr(0, record::kMaxNameBytes), out);
  });
}

protond_result Recorder::WriteDeviceInfo(uint32_t device_id, const record::DeviceInfoRecord& device,
                                         std::string_view name) {
  return WriteUnreferenced(*region_, session_id(), [&](uint8_t* out) {
    return record::EncodeDeviceInfo(device_id, device, name.substr(0, record::kMaxNameBytes), out);
  });
}

void Recorder::CountDropped(uint64_t count) {
  const uint64_t session = session_id();
  ThreadRecorder& t = CurrentThread();
  if (session != 0 && PrepareLane(*region_, t, session)) t.lane.CountDropped(count);
}

protond_result Recorder::ExitState() {
  ThreadRecorder& t = CurrentThread();
  if (t.state_name_id == 0) return Fail(t, PROTOND_ERR_NO_SCOPE, "no state is set on this thread");
  const uint32_t name_id = t.state_name_id;
  const uint64_t recorded_in = t.state_recorded_in_session;
  t.state_name_id = 0;
  const uint64_t session = session_id();
  if (session == 0 || recorded_in != session) return PROTOND_INACTIVE;
  return WriteRecord(*this, t, session, record::kRootContextId, name_id, NameClass::kState,
                     record::MakeTimed(record::Kind::kStateExit, name_id, NowNs()));
}

}  // namespace protond::shim
