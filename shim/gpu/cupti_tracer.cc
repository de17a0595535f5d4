// libprotond_cupti.so: the GPU tracer (gpu_api.h). While a session runs it holds the process's
// one CUPTI subscription: launch, copy and set API callbacks map each correlation id to the
// launching thread's scope, graph-node callbacks remember where captured work came from, and
// activity buffers (kernels, copies, sets) are converted into protond's records on CUPTI's
// buffer-completion thread and written into that thread's lane. Each start also writes what the
// process's CUDA devices are. A session in pcsampling mode also runs a PcSampler, whose samples
// a collector thread writes into that thread's lane.
#include <cupti.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "shim/gpu/activity_converter.h"
#include "shim/gpu/correlation_map.h"
#include "shim/gpu/device_info.h"
#include "shim/gpu/gpu_api.h"
#include "shim/gpu/pc_sampler.h"

namespace protond::shim::gpu {
namespace {

constexpr size_t kBufferBytes = 8 << 20;
constexpr uint32_t kFlushPeriodMs = 200;  // how stale delivered data may get while running
// How long a destroyed graph's nodes are remembered for records of its last replays.
constexpr uint64_t kRetiredGraphNodeNs = 30'000'000'000;

constexpr CUpti_ActivityKind kActivityKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET};

// The API calls whose correlation ids can appear on a kernel, copy or set record.
constexpr const char* kDriverCallPrefixes[] = {"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset"};
constexpr const char* kRuntimeCallPrefixes[] = {"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy",
                                                "cudaMemset"};
// Those of them that launch kernels: a launch frame (Proton's launch hook) ends with them.
constexpr const char* kDriverKernelLaunchPrefixes[] = {"cuLaunch"};
constexpr const char* kRuntimeKernelLaunchPrefixes[] = {"cudaLaunch"};

// How often the collector moves PC samples from CUPTI into the session.
constexpr std::chrono::milliseconds kPcCollectPeriod{100};
// How long the session's end waits for a program thread to turn sampling off (PcSampler::Finish).
constexpr std::chrono::milliseconds kPcFinishPatience{500};

constexpr CUpti_CallbackId kSamplingResourceCallbacks[] = {
    CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
    CUPTI_CBID_RESOURCE_MODULE_LOADED};

constexpr CUpti_CallbackId kGraphNodeCallbacks[] = {CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
                                                    CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED,
                                                    CUPTI_CBID_RESOURCE_GRAPHNODE_DESTROY_STARTING};

struct Tracer {
  const ProtondGpuHost* host = nullptr;
  CUpti_SubscriberHandle subscriber = nullptr;
  CorrelationMap correlations;
  GraphCaptures graphs;
  std::mutex convert_mutex;  // buffers may complete on several threads
  std::optional<ActivityConverter> converter;
  ConverterStats warned;  // which of the converter's imprecisions were reported already
  // The driver was not ready at start (inside cuInit): the devices are written later, at the
  // first kernel launch's return or buffer completion. Written under convert_mutex.
  std::atomic<bool> devices_pending{false};
  // PC sampling, while a pcsampling session runs: set and reset under g_start_stop_mutex, read
  // by callbacks while subscribed.
  std::atomic<PcSampler*> sampler{nullptr};
  // The last session's sampler, kept until the next one starts: a callback that loaded its
  // pointer just before the session ended may still be running in it.
  std::unique_ptr<PcSampler> retired_sampler;
  std::thread collector;
  std::mutex collector_mutex;
  std::condition_variable collector_wake;
  bool collector_stopping = false;  // guarded by collector_mutex
};

constexpr CudaDeviceDriver kDriver = {cuDeviceGetCount, cuDeviceGet,      cuDeviceGetAttribute,
                                      cuDeviceGetName,  cuDeviceTotalMem, cuGetErrorName};

// Created once, never freed: CUPTI may call back on its own threads during exit.
Tracer& TheTracer() {
  static Tracer* tracer = new Tracer;
  return *tracer;
}

std::mutex g_start_stop_mutex;

std::string ResultText(CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return text != nullptr ? text : "CUPTI error " + std::to_string(result);
}

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// CUPTI's clock and CLOCK_MONOTONIC advance together; one offset, read between two reads of the
// monotonic clock, maps one onto the other.
int64_t ClockOffsetNs() {
  uint64_t cupti_ns = 0;
  const uint64_t before = MonotonicNs();
  cuptiGetTimestamp(&cupti_ns);
  const uint64_t after = MonotonicNs();
  return static_cast<int64_t>(before + (after - before) / 2) - static_cast<int64_t>(cupti_ns);
}

uint64_t GraphNodeId(CUgraphNode node) {
  uint64_t id = 0;
  return node != nullptr && cuptiGetGraphNodeId(node, &id) == CUPTI_SUCCESS ? id : 0;
}

void OnGraphNode(Tracer& tracer, CUpti_CallbackId id, const CUpti_ResourceData& resource) {
  const auto* graph = static_cast<const CUpti_GraphData*>(resource.resourceDescriptor);
  if (graph == nullptr) return;
  const uint64_t node = GraphNodeId(graph->node);
  if (node == 0) return;
  switch (id) {
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
      tracer.graphs.NodeCreated(node, tracer.host->current_context());
      // Nodes are also added by calls protond does not follow (cuGraphAddKernelNode), whose
      // return would not forget the context provider's answer: forget it now.
      tracer.host->api_returned(/*kernel_launch=*/0);
      break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
      tracer.graphs.NodeCloned(node, GraphNodeId(graph->originalNode));
      break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_DESTROY_STARTING:
      tracer.graphs.NodeDestroyed(node, MonotonicNs());
      break;
    default:
      break;
  }
}

// Callback ids whose API names start with one of `prefixes`, as a bitmap over `count` ids.
template <typename Prefixes>
std::vector<bool> MatchingCallbacks(CUpti_CallbackDomain domain, uint32_t count,
                                    const Prefixes& prefixes) {
  std::vector<bool> matching(count, false);
  for (uint32_t id = 1; id < count; ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    for (const char* prefix : prefixes) {
      if (std::strncmp(name, prefix, std::strlen(prefix)) == 0) matching[id] = true;
    }
  }
  return matching;
}

bool IsKernelLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  static const auto* driver = new std::vector<bool>(MatchingCallbacks(
      CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, kDriverKernelLaunchPrefixes));
  static const auto* runtime = new std::vector<bool>(MatchingCallbacks(
      CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, kRuntimeKernelLaunchPrefixes));
  const std::vector<bool>& ids = domain == CUPTI_CB_DOMAIN_DRIVER_API ? *driver : *runtime;
  return id < ids.size() && ids[id];
}

// Runs on application threads, inside their CUDA calls: keep it to a few loads and stores.
void OnSamplingResource(PcSampler& sampler, CUpti_CallbackId id,
                        const CUpti_ResourceData& resource) {
  switch (id) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
      sampler.EnableCreatedContext(resource.context);
      break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
      sampler.DisableContext(resource.context);
      break;
    case CUPTI_CBID_RESOURCE_MODULE_LOADED:
      sampler.ModuleLoaded(
          *static_cast<const CUpti_ModuleResourceData*>(resource.resourceDescriptor));
      break;
    default:
      break;
  }
}

// A program that calls the driver API itself starts tracing inside cuInit, when no device can be
// read yet, and may finish before CUPTI completes a buffer (then at exit, after the driver is
// torn down): its first launch's return is the first moment the devices are sure to answer. A
// buffer thread busy with the lock will write them instead: the program never waits here.
void WritePendingDevices(Tracer& tracer) {
  std::unique_lock<std::mutex> lock(tracer.convert_mutex, std::try_to_lock);
  if (!lock.owns_lock() || !tracer.devices_pending.load()) return;
  tracer.devices_pending.store(!WriteDeviceInfo(kDriver, *tracer.host));
}

// The calling thread's latest kernel launch (0: none), for the instrumentation buffer of the kernel
// it launched. A runtime launch returns after the driver launch inside it: the outer call's id is
// the one left here.
thread_local uint32_t t_last_launch_correlation_id = 0;

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                         const void* data) {
  Tracer& tracer = TheTracer();
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    const auto& resource = *static_cast<const CUpti_ResourceData*>(data);
    if (std::find(std::begin(kGraphNodeCallbacks), std::end(kGraphNodeCallbacks), id) !=
        std::end(kGraphNodeCallbacks)) {
      OnGraphNode(tracer, id, resource);
    } else if (PcSampler* sampler = tracer.sampler.load(std::memory_order_acquire)) {
      OnSamplingResource(*sampler, id, resource);
    }
    return;
  }
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite == CUPTI_API_ENTER) {
    tracer.correlations.Put(call->correlationId, tracer.host->current_context(),
                            tracer.host->recording_set());
    PcSampler* sampler = tracer.sampler.load(std::memory_order_acquire);
    if (sampler != nullptr && IsKernelLaunch(domain, id)) {
      CUcontext context = call->context;
      if (context == nullptr) cuCtxGetCurrent(&context);
      sampler->Launching(context);
    }

  } else {
    const bool launch = IsKernelLaunch(domain, id);
    if (launch) t_last_launch_correlation_id = call->correlationId;
    if (launch && tracer.devices_pending.load(std::memory_order_acquire)) {
      WritePendingDevices(tracer);
    }
    tracer.host->api_returned(launch);
  }
}

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  // CUPTI wants 8-byte alignment; a failed allocation makes CUPTI drop (and count) records.
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void WarnOnce(Tracer& tracer, uint64_t now, uint64_t& warned, const char* text) {
  if (now == 0 || warned != 0) return;
  warned = now;
  tracer.host->write_notice(text);
}

// Reports each kind of imprecise attribution the first time it happens in a session.
void ReportConverterStats(Tracer& tracer) {
  const ConverterStats& stats = tracer.converter->stats();
  WarnOnce(tracer, stats.launches_not_seen, tracer.warned.launches_not_seen,
           "GPU work launched before the session started is shown under ROOT");
  WarnOnce(tracer, stats.captures_not_seen, tracer.warned.captures_not_seen,
           "kernels replayed from CUDA graphs captured before the session started are shown "
           "under the launch scope, without their capture scopes");
  if (stats.incomplete > tracer.warned.incomplete) {
    tracer.host->count_dropped(stats.incomplete - tracer.warned.incomplete);
    tracer.warned.incomplete = stats.incomplete;
  }
}

void CUPTIAPI OnBufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t,
                                size_t valid_bytes) {
  Tracer& tracer = TheTracer();
  {
    std::lock_guard<std::mutex> lock(tracer.convert_mutex);
    // Without a converter the session has stopped (after its forced flush): a buffer arriving
    // now holds nothing of any session.
    CUpti_Activity* activity = nullptr;
    while (tracer.converter &&
           cuptiActivityGetNextRecord(buffer, valid_bytes, &activity) == CUPTI_SUCCESS) {
      uint32_t recording_set = kLaunchNotSeen;
      std::optional<record::GpuActivityRecord> converted =
          tracer.converter->Convert(*activity, &recording_set);
      if (!converted) continue;
      tracer.host->write_activity(&*converted, recording_set);
      PcSampler* sampler = tracer.sampler.load(std::memory_order_acquire);
      if (sampler != nullptr && activity->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
        const record::GpuActivityRecord& kernel = *converted;
        // A record that ends before it starts (the daemon counts those) weighs nothing.
        const uint64_t gpu_ns =
            kernel.end_ns >= kernel.start_ns ? kernel.end_ns - kernel.start_ns : 0;
        sampler->aggregator().KernelRan(
            tracer.converter->FunctionNameId(
                *reinterpret_cast<const CUpti_ActivityKernel10*>(activity)),
            kernel.header.aux, kernel.name_id, gpu_ns);
      }
    }
    if (tracer.converter) {
      ReportConverterStats(tracer);
      // By the time the GPU has worked, cuInit has returned.
      if (tracer.devices_pending.load()) {
        tracer.devices_pending.store(!WriteDeviceInfo(kDriver, *tracer.host));
      }
    }
    const uint64_t now = MonotonicNs();
    if (now > kRetiredGraphNodeNs) tracer.graphs.ForgetRetired(now - kRetiredGraphNodeNs);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS &&
        dropped != 0 && tracer.host != nullptr) {
      tracer.host->count_dropped(dropped);
    }
  }
  std::free(buffer);
}

// Looks up, once, the driver and runtime calls to follow (ids differ between CUDA versions;
// names do not).
const std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>>& LaunchCallbacks() {
  static const auto* callbacks = [] {
    auto* found = new std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>>;
    auto add_matching = [&](CUpti_CallbackDomain domain, uint32_t count, const auto& prefixes) {
      const std::vector<bool> matching = MatchingCallbacks(domain, count, prefixes);
      for (uint32_t id = 0; id < count; ++id) {
        if (matching[id]) found->emplace_back(domain, id);
      }
    };
    add_matching(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, kDriverCallPrefixes);
    add_matching(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, kRuntimeCallPrefixes);
    for (CUpti_CallbackId id : kGraphNodeCallbacks)
      found->emplace_back(CUPTI_CB_DOMAIN_RESOURCE, id);
    return found;
  }();
  return *callbacks;
}

std::string Subscribe(Tracer& tracer) {
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = {};
  CUpti_SubscriberParams params = {};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "protond";
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof(holder);
  const CUptiResult result = cuptiSubscribe_v2(&tracer.subscriber, OnCallback, nullptr, &params);
  if (result == CUPTI_SUCCESS) return "";
  tracer.subscriber = nullptr;
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    // Kineto (torch.profiler) subscribes without a name: CUPTI then says "<not provided>".
    const bool named = holder[0] != '\0' && std::strstr(holder, "<not provided>") == nullptr;
    return std::string("CUPTI is held by ") +
           (named ? holder
                  : "another tool in this process that did not give its name (for example "
                    "torch.profiler)");
  }
  return "cannot subscribe to CUPTI: " + ResultText(result);
}

// Undoes whatever of Enable succeeded; safe to call on a partial start.
void Disable(Tracer& tracer) {
  for (CUpti_ActivityKind kind : kActivityKinds) cuptiActivityDisable(kind);
  cuptiEnableAllDomains(0, tracer.subscriber);
  // Forced: buffers with work the GPU has not finished are delivered too (and counted).
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  cuptiUnsubscribe(tracer.subscriber);
  tracer.subscriber = nullptr;
}

std::string Enable(Tracer& tracer) {
  CUptiResult result = cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted);
  for (const auto& [domain, id] : LaunchCallbacks()) {
    if (result != CUPTI_SUCCESS) break;
    result = cuptiEnableCallback(1, tracer.subscriber, domain, id);
  }
  for (CUpti_ActivityKind kind : kActivityKinds) {
    if (result != CUPTI_SUCCESS) break;
    result = cuptiActivityEnable(kind);
  }
  if (result == CUPTI_SUCCESS) result = cuptiActivityFlushPeriod(kFlushPeriodMs);
  return result == CUPTI_SUCCESS ? "" : "cannot enable CUPTI tracing: " + ResultText(result);
}

void WritePcSamples(Tracer& tracer, PcSampler& sampler, bool final) {
  for (const record::PcSampleRecord& sample : sampler.aggregator().TakeRecords(final)) {
    tracer.host->write_pc_sample(&sample);
  }
}

void CollectPeriodically(Tracer& tracer, PcSampler& sampler) {
  std::unique_lock<std::mutex> lock(tracer.collector_mutex);
  while (!tracer.collector_wake.wait_for(lock, kPcCollectPeriod,
                                         [&] { return tracer.collector_stopping; })) {
    lock.unlock();
    sampler.Collect();
    WritePcSamples(tracer, sampler, /*final=*/false);
    lock.lock();
  }
}

// Turns PC sampling on: for contexts created from now on (resource callbacks) and those alive.
void StartSampling(Tracer& tracer, const ProtondGpuOptions& options) {
  tracer.retired_sampler.reset();
  auto* sampler = new PcSampler(*tracer.host, options.pc_sampling_period_log2);
  for (CUpti_CallbackId id : kSamplingResourceCallbacks) {
    cuptiEnableCallback(1, tracer.subscriber, CUPTI_CB_DOMAIN_RESOURCE, id);
  }
  tracer.sampler.store(sampler, std::memory_order_release);
  sampler->AddExistingContexts();
  tracer.collector_stopping = false;
  tracer.collector = std::thread(CollectPeriodically, std::ref(tracer), std::ref(*sampler));
}

void StopCollector(Tracer& tracer) {
  if (!tracer.collector.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(tracer.collector_mutex);
    tracer.collector_stopping = true;
  }
  tracer.collector_wake.notify_all();
  tracer.collector.join();
}

// After the last kernel records are in: writes every sample, says what they lack, and turns
// sampling off.
// Collects the last samples and turns sampling off, while the callbacks still come (it may wait
// for a program thread's launch).
void StopSampling(Tracer& tracer) {
  if (PcSampler* sampler = tracer.sampler.load(std::memory_order_acquire)) {
    sampler->Finish(kPcFinishPatience);
  }
}

// After the last kernel records are in: writes every sample and says what they lack.
void WriteLastSamples(Tracer& tracer) {
  PcSampler* sampler = tracer.sampler.load(std::memory_order_acquire);
  if (sampler == nullptr) return;
  WritePcSamples(tracer, *sampler, /*final=*/true);
  if (const std::string shortcomings = sampler->Shortcomings(); !shortcomings.empty()) {
    tracer.host->write_notice(shortcomings.c_str());
  }
  tracer.sampler.store(nullptr, std::memory_order_release);
  tracer.retired_sampler.reset(sampler);
}

bool Start(const ProtondGpuHost* host, const ProtondGpuOptions* options, char* error,
           size_t error_bytes) {
  std::lock_guard<std::mutex> lock(g_start_stop_mutex);
  Tracer& tracer = TheTracer();
  if (tracer.subscriber != nullptr) {
    if (options->pc_sampling && tracer.sampler.load() == nullptr) StartSampling(tracer, *options);
    return true;
  }
  std::string failure = !tracer.correlations.ok() ? "out of memory for the correlation map" : "";
  if (failure.empty()) {
    tracer.host = host;
    failure = Subscribe(tracer);
  }
  if (failure.empty()) {
    {
      std::lock_guard<std::mutex> convert_lock(tracer.convert_mutex);
      tracer.converter.emplace(*host, tracer.correlations, tracer.graphs, ClockOffsetNs());
      tracer.warned = {};
    }
    failure = Enable(tracer);
    if (!failure.empty()) Disable(tracer);
  }
  if (failure.empty()) {
    // A start from InitializeInjection runs inside cuInit, before the driver answers queries.
    const bool written = WriteDeviceInfo(kDriver, *host);
    {
      std::lock_guard<std::mutex> convert_lock(tracer.convert_mutex);
      tracer.devices_pending.store(!written);
    }
    if (options->pc_sampling) StartSampling(tracer, *options);
    return true;
  }
  std::snprintf(error, error_bytes, "%s", failure.c_str());
  return false;
}

void Stop() {
  std::lock_guard<std::mutex> lock(g_start_stop_mutex);
  Tracer& tracer = TheTracer();
  if (tracer.subscriber == nullptr) return;
  StopCollector(tracer);
  StopSampling(tracer);
  Disable(tracer);  // its forced flush hands the last kernel records to the sampler's aggregator
  WriteLastSamples(tracer);
  std::lock_guard<std::mutex> convert_lock(tracer.convert_mutex);
  tracer.converter.reset();
  tracer.graphs.ForgetRetired(MonotonicNs() + 1);
}

void Flush() {
  std::lock_guard<std::mutex> lock(g_start_stop_mutex);
  if (TheTracer().subscriber != nullptr) cuptiActivityFlushAll(0);
}

bool LastLaunch(uint32_t* correlation_id) {
  if (t_last_launch_correlation_id == 0) return false;
  *correlation_id = t_last_launch_correlation_id;
  return true;
}

constexpr ProtondGpuApi kApi = {kGpuApiVersion, Start, Stop, Flush, LastLaunch};

}  // namespace
}  // namespace protond::shim::gpu

extern "C" __attribute__((visibility("default"))) const ProtondGpuApi* protond_gpu_api_v7() {
  return &protond::shim::gpu::kApi;
}
