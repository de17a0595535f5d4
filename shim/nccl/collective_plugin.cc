#include "shim/nccl/collective_plugin.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <string_view>

#include "common/record/record_format.h"

namespace protond::shim {
namespace {

// NCCL 2.28's layout of the descriptor's fields that the plugin reads.
static_assert(offsetof(protond_nccl_event_v5, rank) == 16);
static_assert(offsetof(protond_nccl_event_v5, u) == 24);
static_assert(offsetof(protond_nccl_coll_v5, count) == 32);
static_assert(offsetof(protond_nccl_coll_v5, datatype) == 48);
static_assert(offsetof(protond_nccl_coll_v5, channels) == 56);
static_assert(offsetof(protond_nccl_coll_v5, algorithm) == 64);
static_assert(offsetof(protond_nccl_coll_v5, protocol) == 72);

std::atomic<ActiveRecorderFunction> g_active_recorder{nullptr};
std::atomic<LastLaunchFunction> g_last_launch{nullptr};

Recorder* RecorderNow() {
  const ActiveRecorderFunction active = g_active_recorder.load(std::memory_order_acquire);
  return active != nullptr ? active() : nullptr;
}

// One communicator, as init described it.
struct Communicator {
  uint64_t comm_hash = 0;
  uint32_t rank = 0;
  uint32_t nranks = 0;
  // Its collective calls so far, recorded or not: every rank calls a communicator's collectives
  // in the same order (NCCL requires it), so the n-th call is the same call on every rank. NCCL's
  // own seqNumber counts per function, which would give an all_reduce and a broadcast one number.
  std::atomic<uint64_t> calls{0};
};

std::string_view TextOrEmpty(const char* text) { return text != nullptr ? text : ""; }

protond_nccl_result Init(void** context, uint64_t comm_hash, int* activation_mask,
                         const char* /*comm_name*/, int /*nodes*/, int nranks, int rank,
                         protond_nccl_logger /*logger*/) {
  auto* communicator = new (std::nothrow) Communicator;
  if (communicator == nullptr) return PROTOND_NCCL_SYSTEM_ERROR;  // NCCL turns the plugin off
  communicator->comm_hash = comm_hash;
  communicator->rank = static_cast<uint32_t>(rank);
  communicator->nranks = static_cast<uint32_t>(nranks);
  *context = communicator;
  // Collectives only, always: NCCL takes a call's mask when the call is made, and a session may
  // start at any moment. The host-side events cost NCCL nothing on the GPU.
  *activation_mask = PROTOND_NCCL_PROFILE_COLL;
  return PROTOND_NCCL_SUCCESS;
}

protond_nccl_result StartEvent(void* context, void** event, protond_nccl_event_v5* descr) {
  *event = nullptr;
  auto* communicator = static_cast<Communicator*>(context);
  if (communicator == nullptr || descr == nullptr || descr->type != PROTOND_NCCL_PROFILE_COLL) {
    return PROTOND_NCCL_SUCCESS;
  }
  const uint64_t seq = communicator->calls.fetch_add(1, std::memory_order_relaxed);
  Recorder* recorder = RecorderNow();
  if (recorder == nullptr || !recorder->recording()) return PROTOND_NCCL_SUCCESS;
  auto* pending = new (std::nothrow) record::CollectiveRecord(recorder->BeginCollective());
  if (pending == nullptr) return PROTOND_NCCL_SUCCESS;
  const protond_nccl_coll_v5& coll = descr->u.coll;
  pending->comm_hash = communicator->comm_hash;
  pending->seq = seq;
  pending->count = coll.count;
  pending->rank = communicator->rank;
  pending->nranks = communicator->nranks;
  record::SetCollectiveText(TextOrEmpty(coll.func), pending->op);
  record::SetCollectiveText(TextOrEmpty(coll.datatype), pending->datatype);
  record::SetCollectiveText(TextOrEmpty(coll.algorithm), pending->algorithm);
  record::SetCollectiveText(TextOrEmpty(coll.protocol), pending->protocol);
  const LastLaunchFunction last_launch = g_last_launch.load(std::memory_order_acquire);
  if (last_launch != nullptr && last_launch(&pending->launch_correlation_id)) {
    pending->collective_flags = record::kCollectiveLaunchKnown;
  } else {
    pending->launch_correlation_id = 0;
  }
  *event = pending;
  return PROTOND_NCCL_SUCCESS;
}

protond_nccl_result StopEvent(void* event) {
  std::unique_ptr<record::CollectiveRecord> pending(static_cast<record::CollectiveRecord*>(event));
  if (pending == nullptr) return PROTOND_NCCL_SUCCESS;
  // A session that stopped meanwhile is not written to: EndCollective writes to those recording.
  if (Recorder* recorder = RecorderNow()) recorder->EndCollective(*pending);
  return PROTOND_NCCL_SUCCESS;
}

protond_nccl_result RecordEventState(void* /*event*/, int /*state*/, void* /*state_args*/) {
  return PROTOND_NCCL_SUCCESS;  // collectives have no states
}

protond_nccl_result Finalize(void* context) {
  delete static_cast<Communicator*>(context);
  return PROTOND_NCCL_SUCCESS;
}

const protond_nccl_profiler_v5 kPluginV5 = {
    .name = "protond",
    .init = &Init,
    .start_event = &StartEvent,
    .stop_event = &StopEvent,
    .record_event_state = &RecordEventState,
    .finalize = &Finalize,
};

}  // namespace

void SetCollectiveRecorder(ActiveRecorderFunction active_recorder, LastLaunchFunction last_launch) {
  g_last_launch.store(last_launch, std::memory_order_release);
  g_active_recorder.store(active_recorder, std::memory_order_release);
}

const protond_nccl_profiler_v5* CollectivePluginV5() { return &kPluginV5; }

}  // namespace protond::shim
