// ProtondService: registration of processes and their shared-memory regions.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "daemon/service/internal/proc_stat.h"
#include "daemon/service/protond_service.h"

namespace protond::service {

namespace {

constexpr size_t kMaxCommandBytes = 4096;
constexpr size_t kMaxJobBytes = 256;

// Opens the memfd the process named, through /proc: this only works for a process the daemon may
// inspect (same user, or root), which is the access check for the region.
absl::StatusOr<ring::RegionReader> OpenRegion(const Peer& peer,
                                              const v1::RegisterRequest& request) {
  const std::string path = absl::StrCat("/proc/", peer.pid, "/fd/", request.region_fd());
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot open the region of process ", peer.pid,
                                                    " at ", path, ": ", std::strerror(errno)));
  }
  absl::StatusOr<ring::RegionReader> region =
      ring::RegionReader::Attach(fd, request.region_bytes());
  if (!region.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("region of process ", peer.pid, " refused: ", region.status().message()));
  }
  return region;
}

// What the process says of its host and job, cut to a sane size.
store::JobRow JobOf(const v1::RegisterRequest& request) {
  const auto cut = [](const std::string& text) { return text.substr(0, kMaxJobBytes); };
  const v1::Job& job = request.job();
  return {cut(request.hostname()), cut(job.rank()),         cut(job.local_rank()),
          cut(job.world_size()),   cut(job.slurm_job_id()), cut(job.slurm_step_id()),
          cut(job.pod()),          cut(job.pod_namespace())};
}

std::string CommandLine(const v1::RegisterRequest& request) {
  std::string command = absl::StrJoin(request.argv(), " ");
  if (command.size() > kMaxCommandBytes) command.resize(kMaxCommandBytes);
  return command;
}

}  // namespace

absl::StatusOr<uint64_t> ProtondService::RegisterProcess(const Peer& peer,
                                                         const v1::RegisterRequest& request) {
  // A process in a PID namespace of its own (a Kubernetes pod's) claims the pid it knows.
  const bool same_pid =
      request.pid() == peer.pid || request.pid() == ReadPidInOwnNamespace(peer.pid);
  if (!same_pid || request.uid() != peer.uid) {
    return absl::PermissionDeniedError(
        absl::StrCat("registration claims pid ", request.pid(), " uid ", request.uid(),
                     " but the connection belongs to pid ", peer.pid, " uid ", peer.uid));
  }
  const uint64_t start_ticks = ReadStartTicks(peer.pid);
  if (start_ticks == 0) {
    return absl::FailedPreconditionError(absl::StrCat("process ", peer.pid, " is gone"));
  }
  ASSIGN_OR_RETURN(ring::RegionReader region, OpenRegion(peer, request));
  absl::MutexLock lock(&mutex_);
  if (request.session_id() != 0) {
    ASSIGN_OR_RETURN(SessionEntry * session, OwnedSession(peer, request.session_id()));
    if (session->row.state != store::SessionState::kRunning) {
      return absl::FailedPreconditionError(
          absl::StrCat("session ", request.session_id(), " is not running"));
    }
  }
  return AttachProcess(peer, request, std::move(region), start_ticks);
}

absl::StatusOr<uint64_t> ProtondService::AttachProcess(const Peer& peer,
                                                       const v1::RegisterRequest& request,
                                                       ring::RegionReader region,
                                                       uint64_t start_ticks) {
  ProcessEntry* process = nullptr;
  for (auto& [id, entry] : processes_) {
    if (entry.row.pid == peer.pid && entry.row.start_time_ticks == start_ticks) process = &entry;
  }
  if (process == nullptr) {
    ASSIGN_OR_RETURN(std::optional<store::StoredProcess> stored,
                     store_->FindLiveProcess(peer.pid, start_ticks));
    const uint64_t id = stored ? stored->process.process_id : next_process_id_++;
    process = &processes_[id];
    // After a daemon restart, the store has it: resume each lane from its committed position.
    process->row = stored ? stored->process
                          : store::ProcessRow{
                                id, peer.pid, peer.uid, start_ticks, CommandLine(request), false};
    RETURN_IF_ERROR(ResumeFromStore(*process, region.lane_count(), stored ? &*stored : nullptr));
  }
  process->row.job = JobOf(request);
  process->cuda_visible_devices = request.job().cuda_visible_devices().substr(0, kMaxJobBytes);
  process->region = std::move(region);
  process->connected = true;
  process->changed = true;
  bool recording = false;
  for (auto& [session_id, session] : sessions_) {
    const bool member = session.processes.contains(process->row.process_id);
    if (session_id == request.session_id() || (member && session.tree != nullptr)) {
      JoinSession(*process, session);
      recording = true;
    }
  }
  if (!recording) JoinAdmittingSession(*process);
  return process->row.process_id;
}

void ProtondService::JoinAdmittingSession(ProcessEntry& process) {
  if (process.row.job.name().empty()) return;
  for (auto& [session_id, session] : sessions_) {
    const bool admits = session.tree != nullptr && session.row.admits_new &&
                        session.row.job == process.row.job.name() &&
                        (session.row.uid == 0 || session.row.uid == process.row.uid);
    if (!admits) continue;
    // Told like a protonctl start, without waiting: its answer comes on its connection later.
    JoinSession(process, session);
    v1::ControlCommand start;
    start.set_command_id(next_command_id_++);
    start.mutable_start_recording()->set_session_id(session_id);
    start.mutable_start_recording()->set_mode(session.row.mode);
    process.outbox.push_back(std::move(start));
    commands_.SignalAll();
    return;  // one session at a time, as protonctl start allows
  }
}

absl::Status ProtondService::ResumeFromStore(ProcessEntry& process, uint32_t lane_count,
                                             const store::StoredProcess* stored) {
  process.decoder = std::make_unique<ingest::ProcessDecoder>(process.row.process_id);
  process.lanes.assign(lane_count, {});
  for (uint32_t lane = 0; lane < lane_count; ++lane) process.lanes[lane].lane = lane;
  process.no_lane_dropped_seen = 0;
  if (stored == nullptr) return absl::OkStatus();
  process.decoder->Load(stored->contexts, stored->names);
  for (const store::LaneRow& row : stored->lanes) {
    if (row.lane == lane_count) {
      process.no_lane_dropped_seen = row.dropped_seen;
    } else if (row.lane < lane_count) {
      ASSIGN_OR_RETURN(process.lanes[row.lane], ingest::LaneCursor::FromRow(row));
    }
  }
  return absl::OkStatus();
}

void ProtondService::JoinSession(ProcessEntry& process, SessionEntry& session) {
  session.processes.try_emplace(process.row.process_id);
  session.changed = true;
  process.last_session = session.row.session_id;
}

void ProtondService::ProcessDisconnected(uint64_t process_id) {
  absl::MutexLock lock(&mutex_);
  if (auto it = processes_.find(process_id); it != processes_.end()) it->second.connected = false;
  answered_.SignalAll();  // a command it was given will not be answered
}

}  // namespace protond::service
