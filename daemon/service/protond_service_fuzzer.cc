// Drives ProtondService, the daemon's request handlers behind gRPC and the control connection,
// with arbitrary requests from arbitrary callers, over a fresh store each input. A handler must
// answer a result or an error, never crash, and never leave the service (or its store) in a
// state the next request trips on.
//
// Input: steps of [operation byte][caller byte][length byte][length bytes of the request,
// serialized protobuf]. The caller byte picks the peer's pid (this process or pid 1) and uid
// (root or 1000), as SO_PEERCRED would give them; with bit 3 the caller is remote (a TCP token's:
// no pid), limited with bit 4 to job "1234". A registration always names this process and a
// real region (the fuzzer's own memfd), so that registered processes exist and sessions can have
// members; another operation writes the bytes of a step into one of the region's lanes as a
// record, which the next ingest cycle decodes into the sessions. In a request, pid 2 (kthreadd,
// never a registered process) stands for this process, so that an input means the same whatever
// the fuzzer's own pid.
//
// No step waits: pushed commands are given up on at once (an answer timeout of 0), the ingest
// thread's interval is an hour (it runs its last cycle when the service is destroyed), and
// NextCommand waits 0 ms.
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/ring/ring_layout.h"
#include "daemon/service/protond_service.h"
#include "google/protobuf/stubs/logging.h"
#include "protond.pb.h"
#include "shim/ring/ring_writer.h"

namespace {

using protond::service::Peer;
using protond::service::ProtondService;

constexpr protond::ring::RegionGeometry kGeometry{4, protond::ring::kMinLaneDataBytes};
constexpr size_t kMaxSteps = 32;
constexpr uint32_t kSelfPid = 2;

enum Operation : uint8_t {
  kStartSession,
  kStopSession,
  kFlushSession,
  kListSessions,
  kGetTree,
  kGetTrace,
  kAttach,
  kListProcesses,
  kRegisterProcess,
  kAcknowledge,
  kNextCommand,
  kProcessDisconnected,
  kRunIngestCycle,
  kWriteRecord,
  kViewTree,
  kGetCollectives,
  kOperationCount,
};

// A folder of its own for the stores, removed at exit: in /dev/shm where there is one, since
// SQLite's syncs on a disk make an input take ten times longer.
const std::string& StoreFolder() {
  static const std::string* const folder = [] {
    std::string pattern =
        (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + std::string("/protond_fuzz.XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) __builtin_trap();
    auto* path = new std::string(pattern);
    std::atexit([] { std::system(("rm -rf " + StoreFolder()).c_str()); });
    return path;
  }();
  return *folder;
}

void RemoveStore(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) unlink((path + suffix).c_str());
}

Peer PeerOf(uint8_t caller) {
  Peer peer;
  peer.remote = (caller & 8) != 0;
  peer.pid = peer.remote ? 0u : caller & 1 ? static_cast<uint32_t>(getpid()) : 1u;
  peer.uid = caller & 2 ? 0u : 1000u;
  if (caller & 16) peer.jobs = {"1234"};
  return peer;
}

uint32_t RealPid(uint32_t pid) { return pid == kSelfPid ? static_cast<uint32_t>(getpid()) : pid; }

template <typename Request>
Request Parse(const std::string& bytes) {
  Request request;
  (void)request.ParseFromString(bytes);  // what does not parse is a default request
  return request;
}

uint64_t FirstByte(const std::string& bytes) {
  return bytes.empty() ? 0 : static_cast<uint8_t>(bytes[0]);
}

struct Target {
  ProtondService* service;
  protond::ring::WritableRegion* region;
  protond::ring::LaneWriter* lane;
};

// What gRPC's SessionsService::StopSession does: a pid stands for its running session.
void StopSession(ProtondService& service, const Peer& peer, const std::string& bytes) {
  const auto request = Parse<protond::v1::StopSessionRequest>(bytes);
  uint64_t session_id = request.session_id();
  if (session_id == 0 && request.pid() != 0) {
    absl::StatusOr<uint64_t> found = service.SessionOfProcess(peer, RealPid(request.pid()));
    if (!found.ok()) return;
    session_id = *found;
  }
  (void)service.StopSession(peer, session_id);
}

void RegisterProcess(const Target& target, uint8_t caller, const std::string& bytes) {
  auto request = Parse<protond::v1::RegisterRequest>(bytes);
  Peer peer;  // SO_PEERCRED of the process's own control connection
  peer.pid = static_cast<uint32_t>(getpid());
  peer.uid = PeerOf(caller).uid;
  request.set_pid(peer.pid);
  request.set_uid(peer.uid);
  request.set_region_fd(target.region->fd());
  if ((caller & 4) == 0) request.set_region_bytes(target.region->bytes());
  (void)target.service->RegisterProcess(peer, request);
}

// A record's bytes, padded to the 8-byte multiple a lane takes.
void WriteRecord(const Target& target, std::string bytes) {
  bytes.resize((bytes.size() + 7) / 8 * 8, '\0');
  if (!bytes.empty()) (void)target.lane->TryWrite(bytes.data(), bytes.size());
}

void RunStep(const Target& target, uint8_t operation, uint8_t caller, const std::string& bytes) {
  ProtondService& service = *target.service;
  const Peer peer = PeerOf(caller);
  switch (operation % kOperationCount) {
    case kStartSession: {
      const auto request = Parse<protond::v1::StartSessionRequest>(bytes);
      (void)service.StartSession(peer, request.name(), request.data(), request.mode());
      break;
    }
    case kStopSession:
      StopSession(service, peer, bytes);
      break;
    case kFlushSession:
      (void)service.FlushSession(peer, Parse<protond::v1::FlushSessionRequest>(bytes).session_id());
      break;
    case kListSessions:
      (void)service.ListSessions(peer);
      break;
    case kGetTree: {
      const auto request = Parse<protond::v1::GetTreeRequest>(bytes);
      (void)service.GetTree(peer, request.session_id(), request.rank(), request.instructions());
      break;
    }
    case kViewTree:
      (void)service.ViewTree(peer, Parse<protond::v1::ViewTreeRequest>(bytes));
      break;
    case kGetTrace:
      (void)service.GetTrace(peer, Parse<protond::v1::GetTraceRequest>(bytes).session_id());
      break;
    case kGetCollectives:
      (void)service.GetCollectives(peer,
                                   Parse<protond::v1::GetCollectivesRequest>(bytes).session_id());
      break;
    case kAttach: {
      auto request = Parse<protond::v1::AttachRequest>(bytes);
      for (uint32_t& pid : *request.mutable_pids()) pid = RealPid(pid);
      (void)service.Attach(peer, request);
      break;
    }
    case kListProcesses:
      (void)service.ListProcesses(peer);
      break;
    case kRegisterProcess:
      RegisterProcess(target, caller, bytes);
      break;
    case kAcknowledge:
      (void)service.Acknowledge(peer, Parse<protond::v1::CommandResult>(bytes));
      break;
    case kNextCommand:
      (void)service.NextCommand(FirstByte(bytes), std::chrono::milliseconds(0));
      break;
    case kProcessDisconnected:
      service.ProcessDisconnected(FirstByte(bytes));
      break;
    case kRunIngestCycle:
      (void)service.RunIngestCycle();
      break;
    case kWriteRecord:
      WriteRecord(target, bytes);
      break;
  }
}

}  // namespace

// libprotobuf logs every string field that is not UTF-8: quiet, or the log is the run.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string store_path = StoreFolder() + "/store.db";
  absl::StatusOr<protond::ring::WritableRegion> region =
      protond::ring::WritableRegion::Create(kGeometry);
  if (!region.ok()) __builtin_trap();
  protond::ring::LaneWriter lane = region->ClaimLane(static_cast<uint32_t>(gettid()));
  {
    absl::StatusOr<std::unique_ptr<ProtondService>> service =
        ProtondService::Create({store_path, std::chrono::hours(1), std::nullopt});
    if (!service.ok()) {
      std::fprintf(stderr, "%s\n", service.status().ToString().c_str());
      __builtin_trap();
    }
    (*service)->set_answer_timeout(std::chrono::milliseconds(0));
    const Target target{service->get(), &*region, &lane};
    size_t at = 0;
    for (size_t step = 0; step < kMaxSteps && at + 3 <= size; ++step) {
      const uint8_t operation = data[at];
      const uint8_t caller = data[at + 1];
      const size_t length = std::min<size_t>(data[at + 2], size - at - 3);
      const std::string bytes(reinterpret_cast<const char*>(data + at + 3), length);
      at += 3 + length;
      RunStep(target, operation, caller, bytes);
    }
  }
  RemoveStore(store_path);
  return 0;
}
