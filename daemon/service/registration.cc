// ProtondService: registration of processes and their shared-memory regions.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "daemon/registry/proc_stat.h"
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
      request.pid() == peer.pid || request.pid() == registry::ReadPidInOwnNamespace(peer.pid);
  if (!same_pid || request.uid() != peer.uid) {
    return absl::PermissionDeniedError(
        absl::StrCat("registration claims pid ", request.pid(), " uid ", request.uid(),
                     " but the connection belongs to pid ", peer.pid, " uid ", peer.uid));
  }
  const uint64_t start_ticks = registry::ReadStartTicks(peer.pid);
  if (start_ticks == 0) {
    return absl::FailedPreconditionError(absl::StrCat("process ", peer.pid, " is gone"));
  }
  ASSIGN_OR_RETURN(ring::RegionReader region, OpenRegion(peer, request));
  absl::MutexLock lock(&mutex_);
  if (request.session_id() != 0) {
    ASSIGN_OR_RETURN(sessions::Session * session, OwnedSession(peer, request.session_id()));
    if (session->row.state != store::SessionState::kRunning) {
      return absl::FailedPreconditionError(
          absl::StrCat("session ", request.session_id(), " is not running"));
    }
  }
  // Known since the daemon started: its lanes go on where they were. Otherwise the store may
  // have it from before a restart.
  store::ProcessRow row;
  if (const auto known = registry_.FindLive(peer.pid, start_ticks); known != nullptr) {
    row = known->row;
    cycle_.Reattach(row.process_id, std::move(region));
  } else {
    ASSIGN_OR_RETURN(
        row, cycle_.AddProcess({0, peer.pid, peer.uid, start_ticks, CommandLine(request), false},
                               std::move(region)));
  }
  row.job = JobOf(request);
  registry_.Register(row, request.job().cuda_visible_devices().substr(0, kMaxJobBytes));
  sessions_.NoteProcessChanged(row.process_id);  // its job may be new: its sessions list it
  bool recording = false;
  for (auto& [session_id, session] : sessions_.all()) {
    const bool member = session.processes.contains(row.process_id);
    if (session_id == request.session_id() || (member && session.running())) {
      cycle_.Join(row.process_id, session);
      recording = true;
    }
  }
  if (!recording) JoinAdmittingSession(*registry_.Find(row.process_id));
  return row.process_id;
}

void ProtondService::JoinAdmittingSession(const registry::Process& process) {
  if (process.row.job.name().empty()) return;
  for (auto& [session_id, session] : sessions_.all()) {
    const bool admits = session.running() && session.row.admits_new &&
                        session.row.job == process.row.job.name() &&
                        (session.row.uid == 0 || session.row.uid == process.row.uid);
    if (!admits) continue;
    // Told like a protonctl start, without waiting: its answer comes on its connection later.
    cycle_.Join(process.row.process_id, session);
    v1::ControlCommand start;
    start.mutable_start_recording()->set_session_id(session_id);
    start.mutable_start_recording()->set_mode(session.row.mode);
    registry_.Push(process.row.process_id, std::move(start));
    return;  // one session at a time, as protonctl start allows
  }
}

void ProtondService::ProcessDisconnected(uint64_t process_id) { registry_.Disconnect(process_id); }

}  // namespace protond::service
