#include "shim/gpu/pc_sampler.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace protond::shim::gpu {
namespace {

// PCs fetched per cuptiPCSamplingGetData call; a call is repeated while CUPTI holds more.
constexpr size_t kPcsPerCall = 4096;
constexpr int kMaxCallsPerCollect = 64;

std::string ResultText(CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return text != nullptr ? text : "CUPTI error " + std::to_string(result);
}

// Why sampling is off, in words a user can act on.
std::string RefusalText(const char* call, CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "this user may not use the GPU's performance counters (ERR_NVGPUCTRPERM); run as "
             "root, or let every user profile by loading the nvidia module with "
             "NVreg_RestrictProfilingToAdminUsers=0 "
             "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
      return "this GPU or its setup does not support it (" + ResultText(result) + ")";
    case CUPTI_ERROR_HARDWARE_BUSY:
      return "the GPU's performance monitor is in use by another tool (DCGM profiling, Nsight "
             "Compute or another profiler)";
    default:
      return std::string(call) + " failed: " + ResultText(result);
  }
}

// Makes `context` current on the calling thread while it lives: CUPTI's calls take a context
// argument, but a thread that did not create the context (the collector, a control thread)
// has no context current.
class CurrentContext {
 public:
  explicit CurrentContext(CUcontext context) : pushed_(cuCtxPushCurrent(context) == CUDA_SUCCESS) {}
  ~CurrentContext() {
    CUcontext popped;
    if (pushed_) cuCtxPopCurrent(&popped);
  }

 private:
  bool pushed_;
};

}  // namespace

PcSampler::DataBuffer::DataBuffer(size_t pc_count, size_t reasons_per_pc)
    : pcs(pc_count), reasons(pc_count * reasons_per_pc) {
  data.size = sizeof(CUpti_PCSamplingData);
  data.collectNumPcs = pc_count;
  data.pPcData = pcs.data();
  for (size_t i = 0; i < pc_count; ++i) {
    pcs[i].size = sizeof(CUpti_PCSamplingPCData);
    pcs[i].stallReason = &reasons[i * reasons_per_pc];
  }
}

void PcSampler::DataBuffer::Reset() {
  data.totalNumPcs = 0;
  data.remainingNumPcs = 0;
}

PcSampler::PcSampler(const ProtondGpuHost& host, uint32_t period_log2)
    : host_(host), period_log2_(period_log2), lines_(host) {}

void PcSampler::AddExistingContexts() {
  std::vector<CUcontext> found;
  int devices = 0;
  if (cuDeviceGetCount(&devices) != CUDA_SUCCESS) return;  // CUDA not initialized: none exist
  for (int ordinal = 0; ordinal < devices; ++ordinal) {
    CUdevice device;
    unsigned flags = 0;
    int active = 0;
    CUcontext context = nullptr;
    if (cuDeviceGet(&device, ordinal) == CUDA_SUCCESS &&
        cuDevicePrimaryCtxGetState(device, &flags, &active) == CUDA_SUCCESS && active &&
        cuDevicePrimaryCtxRetain(&context, device) == CUDA_SUCCESS) {
      found.push_back(context);
      cuDevicePrimaryCtxRelease(device);  // the program holds it too: it lives on
    }
  }
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != nullptr) found.push_back(current);
  std::lock_guard<std::mutex> lock(mutex_);
  existing_.insert(found.begin(), found.end());
}

std::string PcSampler::Configure(CUcontext context, bool ranged, Context& state) {
  CUpti_PCSamplingEnableParams enable = {CUpti_PCSamplingEnableParamsSize, nullptr, context};
  CUptiResult result = cuptiPCSamplingEnable(&enable);
  if (result != CUPTI_SUCCESS) return RefusalText("cuptiPCSamplingEnable", result);

  size_t reason_count = 0;
  CUpti_PCSamplingGetNumStallReasonsParams count = {CUpti_PCSamplingGetNumStallReasonsParamsSize,
                                                    nullptr, context, &reason_count};
  result = cuptiPCSamplingGetNumStallReasons(&count);
  std::vector<uint32_t> indexes(reason_count);
  std::vector<std::vector<char>> names(reason_count,
                                       std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
  std::vector<char*> name_pointers;
  for (std::vector<char>& name : names) name_pointers.push_back(name.data());
  CUpti_PCSamplingGetStallReasonsParams reasons = {CUpti_PCSamplingGetStallReasonsParamsSize,
                                                   nullptr,
                                                   context,
                                                   reason_count,
                                                   indexes.data(),
                                                   name_pointers.data()};
  if (result == CUPTI_SUCCESS) result = cuptiPCSamplingGetStallReasons(&reasons);
  if (result != CUPTI_SUCCESS) return RefusalText("cuptiPCSamplingGetStallReasons", result);
  for (size_t i = 0; i < reason_count; ++i) {
    if (indexes[i] >= state.reason_name_ids.size()) state.reason_name_ids.resize(indexes[i] + 1);
    state.reason_name_ids[indexes[i]] =
        host_.intern_name(names[i].data(), static_cast<uint8_t>(record::NameClass::kStallReason));
  }

  state.collected = std::make_unique<DataBuffer>(kPcsPerCall, reason_count);
  state.flushed = std::make_unique<DataBuffer>(kPcsPerCall, reason_count);
  std::vector<CUpti_PCSamplingConfigurationInfo> config;
  auto add = [&](CUpti_PCSamplingConfigurationAttributeType type) -> auto& {
    config.push_back({});
    config.back().attributeType = type;
    return config.back().attributeData;
  };
  add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE).collectionModeData.collectionMode =
      CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT)
      .outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER)
      .samplingDataBufferData.samplingDataBuffer = &state.flushed->data;
  add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL)
      .enableStartStopControlData.enableStartStopControl = ranged ? 1 : 0;
  if (period_log2_ != 0) {
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD)
        .samplingPeriodData.samplingPeriod = period_log2_;
  }
  CUpti_PCSamplingConfigurationInfoParams params = {};
  params.size = CUpti_PCSamplingConfigurationInfoParamsSize;
  params.ctx = context;
  params.numAttributes = config.size();
  params.pPCSamplingConfigurationInfo = config.data();
  result = cuptiPCSamplingSetConfigurationAttribute(&params);
  if (result != CUPTI_SUCCESS) {
    CUpti_PCSamplingDisableParams disable = {CUpti_PCSamplingDisableParamsSize, nullptr, context};
    cuptiPCSamplingDisable(&disable);
    return RefusalText("cuptiPCSamplingSetConfigurationAttribute", result);
  }
  return "";
}

void PcSampler::EnableCreatedContext(CUcontext context) {
  std::lock_guard<std::mutex> lock(mutex_);
  EnableLocked(context, /*ranged=*/false);
}

void PcSampler::EnableLocked(CUcontext context, bool ranged) {
  if (contexts_.contains(context) || refused_.contains(context)) return;
  Context state;
  const std::string refusal = Configure(context, ranged, state);
  if (!refusal.empty()) {
    refused_.insert(context);
    return ReportOnce(refusal);
  }
  state.ranged = ranged;
  contexts_.emplace(context, std::move(state));
}

void PcSampler::ReportOnce(const std::string& reason) {
  if (reported_) return;
  reported_ = true;
  const std::string text = "PC sampling is off: " + reason + "; kernels and scopes are recorded";
  std::fprintf(stderr, "protond: %s\n", text.c_str());
  host_.write_notice(text.c_str());
}

uint32_t PcSampler::FunctionNameId(const char* name) {
  auto [it, inserted] = function_names_.try_emplace(name);
  if (inserted || it->second.first != name) {
    it->second = {name, host_.intern_kernel_name(name)};
  }
  return it->second.second;
}

void PcSampler::Consume(Context& state, DataBuffer& buffer) {
  const CUpti_PCSamplingData& data = buffer.data;
  dropped_samples_ += data.droppedSamples;
  hardware_buffer_full_ |= data.hardwareBufferFull != 0;
  for (size_t i = 0; i < data.totalNumPcs && i < buffer.pcs.size(); ++i) {
    const CUpti_PCSamplingPCData& pc = buffer.pcs[i];
    if (pc.functionName == nullptr) continue;
    const uint32_t function = FunctionNameId(pc.functionName);
    const uint32_t line = lines_.LineNameId(pc.cubinCrc, pc.functionName, pc.pcOffset);
    const uint64_t cubin_crc = lines_.SentCubin(pc.cubinCrc);
    for (size_t r = 0; r < pc.stallReasonCount; ++r) {
      const CUpti_PCSamplingStallReason& reason = pc.stallReason[r];
      const uint32_t index = reason.pcSamplingStallReasonIndex;
      if (index >= state.reason_name_ids.size() || state.reason_name_ids[index] == 0) continue;
      aggregator_.AddSamples({function, line, state.reason_name_ids[index],
                              static_cast<uint32_t>(pc.pcOffset), cubin_crc},
                             reason.samples);
    }
  }
  buffer.Reset();
}

void PcSampler::CollectLocked(CUcontext context, Context& state) {
  CurrentContext current(context);
  if (state.in_range) {
    state.in_range = false;
    CUpti_PCSamplingStopParams stop = {CUpti_PCSamplingStopParamsSize, nullptr, context};
    if (cuptiPCSamplingStop(&stop) != CUPTI_SUCCESS) return;
  }
  for (int call = 0; call < kMaxCallsPerCollect; ++call) {
    CUpti_PCSamplingGetDataParams params = {CUpti_PCSamplingGetDataParamsSize, nullptr, context,
                                            &state.collected->data};
    const CUptiResult result = cuptiPCSamplingGetData(&params);
    if (result == CUPTI_ERROR_OUT_OF_MEMORY) hardware_buffer_full_ = true;
    if (result != CUPTI_SUCCESS) break;
    const bool more = state.collected->data.remainingNumPcs != 0;
    Consume(state, *state.collected);
    if (!more) break;
  }
}

void PcSampler::StartRangeLocked(CUcontext context, Context& state) {
  CUpti_PCSamplingStartParams start = {CUpti_PCSamplingStartParamsSize, nullptr, context};
  const CUptiResult result = cuptiPCSamplingStart(&start);
  if (result != CUPTI_SUCCESS) return ReportOnce(RefusalText("cuptiPCSamplingStart", result));
  state.in_range = true;
}

namespace {
// Whether the calling thread has launched kernels while sampling ran: a program thread.
thread_local bool t_launched = false;

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void PcSampler::Launching(CUcontext context) {
  t_launched = true;
  const bool finishing = finish_requested_.load(std::memory_order_acquire);
  const int64_t now = SteadyNs();
  if (!finishing && now < next_rotation_ns_.load(std::memory_order_relaxed)) return;
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another program thread is at it
  if (finishing) {
    FinishLocked();
    finished_.notify_all();
    return;
  }
  next_rotation_ns_.store(
      now + std::chrono::duration_cast<std::chrono::nanoseconds>(kRangePeriod).count(),
      std::memory_order_relaxed);
  if (context == nullptr) return;
  if (existing_.erase(context) != 0) EnableLocked(context, /*ranged=*/true);
  auto it = contexts_.find(context);
  if (it == contexts_.end() || !it->second.ranged) return;
  CollectLocked(context, it->second);
  StartRangeLocked(context, it->second);
}

void PcSampler::Collect() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [context, state] : contexts_) {
    if (!state.ranged) CollectLocked(context, state);
  }
}

void PcSampler::DisableLocked(CUcontext context) {
  auto it = contexts_.find(context);
  if (it == contexts_.end()) return;
  Context& state = it->second;
  CollectLocked(context, state);
  CUpti_PCSamplingDisableParams disable = {CUpti_PCSamplingDisableParamsSize, nullptr, context};
  cuptiPCSamplingDisable(&disable);
  // What CUPTI could not hand over through GetData (it answers OUT_OF_MEMORY while the hardware
  // buffer is full, as on the H200 under a memory-bound kernel) it flushes here at the disable,
  // into the buffer given at configuration: every sample of the session, in one of three runs of
  // protond_pc_sampling_test there.
  if (state.flushed->data.totalNumPcs != 0) Consume(state, *state.flushed);
  contexts_.erase(it);
}

void PcSampler::DisableContext(CUcontext context) {
  std::lock_guard<std::mutex> lock(mutex_);
  refused_.erase(context);
  existing_.erase(context);
  DisableLocked(context);
}

void PcSampler::FinishLocked() {
  existing_.clear();
  while (!contexts_.empty()) DisableLocked(contexts_.begin()->first);
  finish_done_ = true;
}

void PcSampler::Finish(std::chrono::milliseconds patience) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!t_launched) {
    finish_requested_.store(true, std::memory_order_release);
    finished_.wait_for(lock, patience, [this] { return finish_done_; });
  }
  if (!finish_done_) FinishLocked();
}

void PcSampler::ModuleLoaded(const CUpti_ModuleResourceData& module) {
  if (module.pCubin != nullptr && module.cubinSize != 0) {
    lines_.ModuleLoaded(module.pCubin, module.cubinSize);
  }
  // After a module unloads and another loads, CUPTI flushes what it held into the buffer given
  // at configuration.
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [context, state] : contexts_) {
    if (state.flushed->data.totalNumPcs != 0) Consume(state, *state.flushed);
  }
}

std::string PcSampler::Shortcomings() {
  std::string text;
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (dropped_samples_ != 0) {
      add(std::to_string(dropped_samples_) +
          " PC samples were dropped by the GPU (its sample buffer was full); a longer interval "
          "(pcsampling:interval=N) keeps up");
    } else if (hardware_buffer_full_) {
      add("the GPU's PC sample buffer was full at times, so some samples may be missing (CUPTI "
          "does not count them); a longer interval (pcsampling:interval=N) keeps up");
    }
  }
  if (const uint64_t n = lines_.without_cubin(); n != 0) {
    add(std::to_string(n) +
        " sampled instructions are named by offset, not source line: their modules loaded before "
        "sampling began");
  }
  if (const uint64_t n = aggregator_.unattributed_samples(); n != 0) {
    add(std::to_string(n) + " PC samples of kernels whose records never came are under ROOT");
  }
  return text;
}

}  // namespace protond::shim::gpu
